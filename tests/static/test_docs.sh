#!/bin/bash
# The README stays a page a newcomer reads, and the topic pages under doc/
# hold the rest:
#   - README.md has at most 300 lines (MAX_README_LINES);
#   - its first 60 lines give the two commands, `make run` and
#     `make check`, and say that as root one drops sudo;
#   - every relative link of README.md and doc/*.md leads to a file that
#     exists, and a link's #anchor to a heading of that file;
#   - each topic a user or a developer looks for is found in README.md or
#     doc/*.md; every doc/*.md page is linked from the README and named in
#     the man page.
# Static: no root, no device, no binary. DOCS_TOP=DIR checks another tree.
# suite-budget: 5
. "$(dirname "$0")/../lib/common.sh"
D=${DOCS_TOP:-$TOP}
cd "$D" || fail "no tree at $D"
MAX_README_LINES=300
HEAD_LINES=60
errs=()

lines=$(wc -l < README.md)
[ "$lines" -le "$MAX_README_LINES" ] ||
	errs+=("README.md has $lines lines (at most $MAX_README_LINES): move the detail to a page under doc/")
head -n "$HEAD_LINES" README.md > "${TMPDIR:-/tmp}/docs-head.$$"
trap 'rm -f "${TMPDIR:-/tmp}/docs-head.$$"' EXIT
for want in 'make run' 'make check' 'as root, drop sudo'; do
	grep -qiF -- "$want" "${TMPDIR:-/tmp}/docs-head.$$" ||
		errs+=("README.md does not say '$want' in its first $HEAD_LINES lines")
done
rm -f "${TMPDIR:-/tmp}/docs-head.$$"

# A heading's anchor as GitHub makes it: lower case, punctuation dropped,
# spaces turned into hyphens.
anchors_of() {
	sed -n 's/^#\{1,6\} \{1,\}//p' "$1" | tr 'A-Z' 'a-z' | sed 's/[^a-z0-9 _-]//g; s/ /-/g'
}
pages=(README.md doc/*.md)
nlinks=0
for f in "${pages[@]}"; do
	[ -e "$f" ] || continue
	dir=$(dirname "$f")
	# every ](target) outside code blocks; links to the web are not checked
	while IFS=: read -r ln target; do
		case $target in http:*|https:*|mailto:*) continue ;; esac
		nlinks=$((nlinks + 1))
		file=${target%%#*}
		anchor=""
		[[ $target == *'#'* ]] && anchor=${target#*#}
		if [ -z "$file" ]; then path=$f; else path=$dir/$file; fi
		if [ ! -e "$path" ]; then
			errs+=("$f:$ln: link to '$target': no file $path")
		elif [ -n "$anchor" ] && ! anchors_of "$path" | grep -qxF -- "$anchor"; then
			errs+=("$f:$ln: link to '$target': $path has no heading with the anchor #$anchor")
		fi
	done < <(awk '/^```/ { code = !code; print ""; next } { print (code ? "" : $0) }' "$f" | grep -noE '\]\([^) ]+\)' | sed 's/:](/:/; s/)$//')
done
[ "$nlinks" -gt 0 ] || errs+=("no relative link found in README.md or doc/*.md")

# topic: a phrase (grep -i -E) a reader can find it by
topics=(
	'how sure is the verdict'
	'who writes'
	'waited behind'
	'prometheus'
	'udev'
	'presentation mode'
	'probe file'
	'^#+ security'
	'check-quick'
	'code map'
	'^#+ where to add a column'
)
for t in "${topics[@]}"; do
	grep -qiE -- "$t" README.md doc/*.md 2>/dev/null ||
		errs+=("no README.md or doc/*.md page covers '$t'")
done
for p in doc/*.md; do
	[ -e "$p" ] || { errs+=("no topic pages under doc/"); break; }
	grep -qF "]($p" README.md || errs+=("README.md does not link $p")
	grep -qF "${p#doc/}" iosched-top.1 || errs+=("the man page does not name $p")
done

if [ ${#errs[@]} -gt 0 ]; then
	printf '  %s\n' "${errs[@]}" >&2
	fail "${#errs[@]} documentation problem(s), above"
fi
note "README.md: $lines lines (at most $MAX_README_LINES); $nlinks relative links resolve; ${#topics[@]} topics found; $(ls doc/*.md | wc -l) pages linked"
echo "PASS"
