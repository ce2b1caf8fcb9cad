#!/bin/bash
# The house style's mechanical part (.editorconfig, doc/style.md), in the
# files git tracks: C and headers indented with tabs (spaces after them
# only to align a continued line, fewer than a tab's worth); no trailing blanks in C, headers and shell scripts; a final
# newline and no carriage returns; no C line over 160 columns (tabs as 8)
# unless it holds a string literal (a sentence kept whole so grep finds
# it; 120 is the aim, .editorconfig's max_line_length). The test first
# shows it finds each kind in files made on purpose, so a rule that
# matches nothing cannot pass it.
# suite-budget: 5
. "$(dirname "$0")/../lib/common.sh"
cd "$TOP" || exit 1
command -v git >/dev/null || skip "needs git (the files it tracks)"

# problems FILE...: each breach, one line each
problems() {
	local f
	for f in "$@"; do
		case $f in
		*.c | *.h)
			grep -nP '^(\t* {8,}| +\t)' "$f" | sed "s|^|$f: indented with spaces: |"
			expand -t8 "$f" | awk -v f="$f" 'length($0) > 160 && !/"/ { print f ": " NR ": " length($0) " columns" }'
			;;
		esac
		grep -nP '[ \t]+$' "$f" | sed "s|^|$f: trailing blanks: |"
		grep -nP '\r$' "$f" | sed "s|^|$f: carriage return: |"
		[ -s "$f" ] && [ -n "$(tail -c1 "$f")" ] && echo "$f: no newline at its end"
	done
}

# the rules can fail
T=$(mktemp -d) || fail "no temporary directory"
trap 'rm -rf "$T"' EXIT
printf 'int f(void)\n{\n        return 0;\n}\n' > "$T/a.c"
printf 'x=1 \n' > "$T/b.sh"
printf 'int g(void);' > "$T/c.h"
printf 'int %0170d;\n' 0 > "$T/d.c"
for k in "indented with spaces" "trailing blanks" "no newline" "columns"; do
	problems "$T"/* | grep -q "$k" || fail "the check does not see '$k' in a file made so"
done

mapfile -t files < <(git ls-files 'src/*.c' 'src/*.h' 'include/*.h' 'tests/*.c' 'tests/*.h' 'tests/*.sh' \
	'tests/*/*.sh' '.ci/*' 'bench/*.sh')
[ "${#files[@]}" -gt 100 ] || fail "found only ${#files[@]} files to check"
out=$(problems "${files[@]}")
[ -z "$out" ] || fail "the house style (doc/style.md) is broken: $(echo "$out" | head -20)"
note "${#files[@]} files in the house style"
echo PASS
