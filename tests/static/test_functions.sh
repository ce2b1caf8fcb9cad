#!/bin/bash
# No function in src/ is longer than 80 lines (from its name to its
# closing brace): a longer one is split into steps that say what they do.
# No .c file is longer than 700 lines: one that is does more than one job
# (the BPF programs aside: a program is one object the kernel verifies).
# A function here is what the code's style makes one: a line at the left
# margin that names it, a "{" alone at the margin, and the "}" at the
# margin that ends it.
# suite-budget: 5
. "$(dirname "$0")/../lib/common.sh"
cd "$TOP" || exit 1
MAX=80
long=$(for f in src/*.c src/*/*.c; do
	awk -v f="$f" -v max="$MAX" '
		/^[A-Za-z_].*\(/ && !/;[ \t]*$/ { name = $0; start = NR }
		/^}/ && name != "" {
			n = NR - start + 1
			if (n > max) { sub(/\(.*/, "", name); k = split(name, a, /[ *]+/); printf "%s: %s, %d lines\n", f, a[k], n }
			name = ""
		}' "$f"
done)
count=$(for f in src/*.c src/*/*.c; do grep -c '^}' "$f"; done | awk '{ s += $1 } END { print s }')
[ "$count" -gt 100 ] || fail "found only $count function ends in src/: the check reads nothing"
[ -z "$long" ] || fail "functions over $MAX lines (split them into steps): $long"
MAXFILE=700
big=$(wc -l $(ls src/*.c src/*/*.c | grep -v '\.bpf\.c$') | awk -v max=$MAXFILE '$2 != "total" && $1 > max { print $2 " (" $1 " lines)" }')
[ -z "$big" ] || fail "files over $MAXFILE lines (one job per file: split them where their jobs part): $big"
note "$count functions, none over $MAX lines; no file over $MAXFILE lines"
echo "PASS"
