#!/bin/bash
# The recording is written through recfmt's tables (whose reader reads it
# back) and jsonv's piecewise writer: src/out/record.c composes no JSON
# itself (no fprintf or fputs, no quoted key in a string of its own, no
# fputc but the newline that ends a line). A key written by hand there is
# one the tables and the reader may not know.
# suite-budget: 5
. "$(dirname "$0")/../lib/common.sh"
cd "$TOP" || exit 1
f=src/out/record.c
[ -f "$f" ] || fail "$f is missing"
grep -q 'recfmt_write' "$f" || fail "$f does not write through recfmt: the check reads nothing"
pat='fprintf|fputs|\\"|fputc\('"'"'[^\\]'
bad=$(grep -nE "$pat" "$f")
[ -z "$bad" ] || fail "JSON written by hand in $f (write it through recfmt's tables or jsonv_w): $bad"
note "$f writes through recfmt and jsonv_w only"
echo "PASS"
