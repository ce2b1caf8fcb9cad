#!/bin/bash
# Every test script is executable, in the tree and in git's index: the
# suite runs each as a program, and one committed without its exec bit is
# "missing" on a fresh clone only (a working tree's chmod hides it).
# suite-budget: 5
. "$(dirname "$0")/../lib/common.sh"
cd "$TOP" || exit 1
bad=""
for f in tests/integration/test_*.sh tests/tui/test_*.sh tests/static/test_*.sh; do
	[ -x "$f" ] || bad="$bad $f(tree)"
done
if git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
	bad="$bad $(git ls-files -s -- 'tests/integration/test_*.sh' 'tests/tui/test_*.sh' 'tests/static/test_*.sh' |
		awk '$1 != "100755" { printf "%s(index) ", $4 }')"
fi
bad=$(echo $bad)
[ -z "$bad" ] || fail "not executable: $bad (chmod +x; git update-index --chmod=+x)"
echo "PASS"
