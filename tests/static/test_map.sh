#!/bin/bash
# Every module has a test, and tests/map.txt says which: one line a module
# of src/ (every .c file, named as from src/), then the tests that run it
# (named as from tests/), or NONE. A reader who changes a module finds
# there what to run; a module added without a test shows here, not months
# later. This fails when
#   - a module of src/ is not in the map, or is in it twice;
#   - the map names a module that is not in src/;
#   - a test it names is not a file under tests/;
#   - a module has its own unit test (tests/unit/LAYER/test_NAME.c for
#     src/LAYER/NAME.c: the unit tests mirror the layers) and the map does
#     not list it first;
#   - a unit test is in no layer's folder, or in another layer's than its
#     module's (tests/unit/test_NAME.c for src/NAME.c at the top);
#   - a line names no test, or NONE beside tests;
#   - more modules are marked NONE than MAX_NONE, the count when this
#     test was written: a new module comes with its test (those marked
#     NONE are printed, with the comment above each saying what would test
#     them).
# The test first shows that it finds each kind in a small tree made on
# purpose, so a check that matches nothing cannot pass it.
# suite-budget: 5
. "$(dirname "$0")/../lib/common.sh"
setup_scratch
cd "$TOP" || exit 1

# Modules marked NONE in tests/map.txt now. Lower it when one gets a test;
# never raise it for a new module: give the module a test.
MAX_NONE=0

# entries MAP: the map's lines that are not comments or blank.
entries() {
	grep -vE '^[[:space:]]*(#|$)' "$1"
}

# modules SRC: every .c file under SRC, named as from SRC, sorted.
modules() {
	(cd "$1" && find . -name '*.c' -type f | sed 's|^\./||' | LC_ALL=C sort)
}

# problems SRC TESTS MAP MAX: each breach of the map's rules, one a line.
problems() {
	local src=$1 tests=$2 map=$3 max=$4 mod rest t unit none=0
	local -A listed=()
	local -a ts
	while read -r mod rest; do
		read -ra ts <<< "$rest"
		[ -n "${listed[$mod]:-}" ] && echo "$mod: named twice in the map"
		listed[$mod]=1
		[ -f "$src/$mod" ] || echo "$mod: in the map, but no such module under src/"
		if [ ${#ts[@]} -eq 0 ]; then
			echo "$mod: names no test (NONE, with a comment, if it has none)"
			continue
		fi
		if [ "${ts[0]}" = NONE ]; then
			none=$((none + 1))
			[ ${#ts[@]} -eq 1 ] || echo "$mod: NONE beside tests"
			continue
		fi
		for t in "${ts[@]}"; do
			case $t in
			NONE) echo "$mod: NONE beside tests" ;;
			/* | *..*) echo "$mod: $t: not a path under tests/" ;;
			*) [ -f "$tests/$t" ] || echo "$mod: $t: no such test under tests/" ;;
			esac
		done
		unit=$(own_test "$mod")
		[ -f "$tests/$unit" ] && [ "${ts[0]}" != "$unit" ] &&
			echo "$mod: has its own unit test $unit, which the map does not list first"
	done < <(entries "$map")
	while read -r mod; do
		[ -n "${listed[$mod]:-}" ] || echo "$mod: not in the map"
	done < <(modules "$src")
	misplaced "$src" "$tests"
	[ "$none" -le "$max" ] || echo "$none modules marked NONE, more than the $max allowed: give the new ones a test"
}

# own_test MODULE: where MODULE's own unit test is (named as from
# tests/): a/b.c's is unit/a/test_b.c.
own_test() {
	local dir=${1%/*} name=${1##*/}
	[ "$dir" = "$1" ] && dir= || dir=$dir/
	echo "unit/${dir}test_${name%.c}.c"
}

# misplaced SRC TESTS: each unit test outside the layer folders that
# mirror SRC's (tests/unit/L/ for src/L/, tests/unit/ for src/'s top), or
# in a layer's folder while a module of its name is in another layer.
misplaced() {
	local src=$1 tests=$2 t rel dir name mods
	while read -r t; do
		rel=${t#"$tests"/unit/}
		dir=${rel%/*}
		[ "$dir" = "$rel" ] && dir=.
		name=${rel##*/}
		name=${name#test_}
		if [ ! -d "$src/$dir" ]; then
			echo "unit/$rel: in no layer's folder (src/$dir is not one)"
			continue
		fi
		[ -f "$src/$dir/$name" ] && continue
		mods=$(cd "$src" && find . -name "$name" -type f | sed 's|^\./||' | head -n 1)
		[ -n "$mods" ] && echo "unit/$rel: tests $mods, so it belongs in $(own_test "$mods")"
	done < <(find "$tests/unit" -name 'test_*.c' -type f | LC_ALL=C sort)
}

# nones MAP: the modules marked NONE, with the comment line above each.
nones() {
	awk '/^[[:space:]]*#/ { c = $0; next } $2 == "NONE" { print $1 " (" c ")" } { c = "" }' "$1"
}

# A tree made on purpose: three modules, one with its unit test, one
# marked NONE; its map is whole (with one NONE allowed).
F=$SCRATCH/fake
mkdir -p "$F/src/a" "$F/src/b" "$F/tests/unit/a" "$F/tests/integration"
touch "$F/src/a/one.c" "$F/src/a/two.c" "$F/src/b/three.c" "$F/tests/unit/a/test_one.c" \
	"$F/tests/integration/test_x.sh"
cat > "$F/good.txt" <<'EOF'
# a/
a/one.c    unit/a/test_one.c integration/test_x.sh
a/two.c    integration/test_x.sh
# b/
# a test that runs three's public functions would go here
b/three.c  NONE
EOF
out=$(problems "$F/src" "$F/tests" "$F/good.txt" 1)
[ -z "$out" ] || fail "a whole map of the made tree was taken for a broken one: $out"
nones "$F/good.txt" | grep -q '^b/three.c (# a test that runs' || fail "the NONE module of the made tree was not listed"

# bad KIND SED [MAX]: the good map edited by SED must give a problem
# that says KIND.
bad() {
	sed "$2" "$F/good.txt" > "$F/bad.txt"
	problems "$F/src" "$F/tests" "$F/bad.txt" "${3:-1}" | grep -qF "$1" ||
		fail "the check does not see '$1' in a map made so ($2)"
}
bad "b/three.c: not in the map" '/^b\/three.c/d'
bad "a/gone.c: in the map, but no such module" '$a a/gone.c integration/test_x.sh'
bad "integration/test_nothere.sh: no such test" 's|^a/two.c .*|a/two.c integration/test_nothere.sh|'
bad "../../src/a/one.c: not a path under tests/" 's|^a/two.c .*|a/two.c ../../src/a/one.c|'
bad "has its own unit test unit/a/test_one.c" 's|^a/one.c .*|a/one.c integration/test_x.sh|'
bad "has its own unit test unit/a/test_one.c" 's|^a/one.c .*|a/one.c integration/test_x.sh unit/a/test_one.c|'
# a unit test in the wrong folder, or in none
mv "$F/tests/unit/a/test_one.c" "$F/tests/unit/test_one.c"
bad "unit/test_one.c: tests a/one.c, so it belongs in unit/a/test_one.c" 's|unit/a/test_one.c|unit/test_one.c|'
mkdir -p "$F/tests/unit/b" "$F/tests/unit/z"
mv "$F/tests/unit/test_one.c" "$F/tests/unit/b/test_one.c"
bad "unit/b/test_one.c: tests a/one.c, so it belongs in unit/a/test_one.c" 's|unit/a/test_one.c|unit/b/test_one.c|'
mv "$F/tests/unit/b/test_one.c" "$F/tests/unit/z/test_one.c"
bad "unit/z/test_one.c: in no layer's folder" 's|unit/a/test_one.c|unit/z/test_one.c|'
mv "$F/tests/unit/z/test_one.c" "$F/tests/unit/a/test_one.c"
bad "1 modules marked NONE, more than the 0 allowed" '' 0
bad "a/two.c: named twice" '$a a/two.c integration/test_x.sh'
bad "a/two.c: names no test" 's|^a/two.c .*|a/two.c|'
bad "b/three.c: NONE beside tests" 's|^b/three.c .*|b/three.c NONE integration/test_x.sh|'

# The real tree.
MAP=tests/map.txt
[ -f "$MAP" ] || fail "no $MAP"
mapfile -t mods < <(modules src)
[ ${#mods[@]} -gt 100 ] || fail "found only ${#mods[@]} modules under src/"
out=$(problems src tests "$MAP" "$MAX_NONE")
[ -z "$out" ] || fail "$MAP does not match src/ and tests/: $(echo "$out" | head -20)"
own=0
for m in "${mods[@]}"; do
	[ -f "tests/$(own_test "$m")" ] && own=$((own + 1))
done
none=$(nones "$MAP" | grep -c .)
note "${#mods[@]} modules in $MAP: $own with their own unit test," \
	"$((${#mods[@]} - own - none)) covered by other tests only, $none marked NONE"
nones "$MAP" | while read -r line; do note "NONE: $line"; done
echo PASS
