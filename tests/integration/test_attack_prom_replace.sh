#!/bin/bash
# --prometheus-textfile in a sticky directory (/tmp) where another user has
# a file of that name: the file stays theirs, as --record leaves it (it is
# replaced by a rename, which would have made it root's, 0644). nobody's
# regular file, FIFO and symbolic link (fs.protected_symlinks off for the
# test, put back after) at the name are each refused, said why (exit 2),
# and left as they were. Root's own file there is replaced as before.
# suite-budget: 10
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd setpriv timeout
setup_scratch

symlinks_unprotected
chmod 755 "$SCRATCH"
T=$SCRATCH/tmp
mkdir -m 1777 "$T"
nobody sh -c "echo mine > '$T/m.prom'" || fail "nobody could not make a file"
nobody mkfifo "$T/f.prom" || fail "nobody could not make a FIFO"
nobody ln -s "$SCRATCH/elsewhere" "$T/l.prom" || fail "nobody could not plant a link"

prom() { timeout 30 "$BIN" -b -d 0.2 -n 2 --no-probe --prometheus-textfile "$1" > /dev/null 2> "$SCRATCH/err"; }
prom "$T/m.prom"; rc=$?
[ $rc -eq 2 ] && grep -q "m.prom belongs to uid 65534, not to this user: not replaced" "$SCRATCH/err" ||
	fail "nobody's file: exit $rc: $(head -c 300 "$SCRATCH/err")"
[ "$(stat -c %U "$T/m.prom")" = nobody ] && [ "$(cat "$T/m.prom")" = mine ] ||
	fail "nobody's file was taken over: now $(stat -c '%U:%G %a' "$T/m.prom")"
note "$(head -n1 "$SCRATCH/err")"
prom "$T/f.prom"; rc=$?
[ $rc -eq 2 ] && grep -q "f.prom is not a regular file: not replaced" "$SCRATCH/err" ||
	fail "nobody's FIFO: exit $rc: $(head -c 300 "$SCRATCH/err")"
[ -p "$T/f.prom" ] || fail "nobody's FIFO was replaced"
prom "$T/l.prom"; rc=$?
[ $rc -eq 2 ] && grep -q "l.prom is a symbolic link: not replaced" "$SCRATCH/err" ||
	fail "nobody's link: exit $rc: $(head -c 300 "$SCRATCH/err")"
[ -L "$T/l.prom" ] && [ ! -e "$SCRATCH/elsewhere" ] || fail "nobody's link was replaced or followed"
ls -A "$T" | grep -q '^\.' && fail "a temporary was left: $(ls -A "$T")"

echo old > "$T/own.prom"
prom "$T/own.prom" || fail "root's own file: exit $?: $(head -c 300 "$SCRATCH/err")"
grep -q "^# TYPE" "$T/own.prom" || fail "root's own file was not replaced: $(head -c 200 "$T/own.prom")"
echo "PASS"
