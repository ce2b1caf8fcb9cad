#!/bin/bash
# A --set the kernel refuses (here: run as an unprivileged user, so the
# write to queue/scheduler fails with EACCES) is reported with the reason
# and what to do, the exit status is 1, and the scheduler is unchanged.
# suite-budget: 10
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd losetup setpriv
setup_scratch

attach_loop 16; L=$LOOP
N=$(basename "$L")
chmod 755 "$SCRATCH"
cp "$BIN" "$SCRATCH/iosched-top" && chmod 755 "$SCRATCH/iosched-top"
before=$(cat "/sys/block/$N/queue/scheduler")
other_sched "$N"
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$SCRATCH/iosched-top" -b -n 1 -d 0.1 --no-probe \
	--disk "$N" --set "$N=$ALT" 2>&1)
rc=$?
[ $rc -eq 1 ] || fail "exit $rc, wanted 1: $out"
echo "$out" | grep -q "cannot set $N scheduler to $ALT: Permission denied (switching needs root)" ||
	fail "message lacks the reason: $out"
[ "$(cat "/sys/block/$N/queue/scheduler")" = "$before" ] || fail "scheduler changed"
note "$out"
echo "PASS"
