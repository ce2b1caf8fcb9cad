#!/bin/bash
# A recording that can no longer be written ends the run, in batch mode and
# on the full screen alike (issue 17): exit 1, a message naming --record
# and the reason after the screen is gone, and the same clean-up as q
# (--enable-delayacct put back). The write fails through a file size limit
# (ulimit -f, with SIGXFSZ ignored so write(2) says EFBIG), which stops the
# recording after a few refreshes.
# suite-alone: it turns kernel.task_delayacct on (a setting of the whole machine) and checks it is put back
# suite-budget: 10
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/tmux.sh"
need_root
need_cmd tmux
setup_scratch
LIMIT="trap '' XFSZ; ulimit -f 32"

start=$(date +%s)
(eval "$LIMIT"; exec "$BIN" -b -d 0.2 -n 600 --no-probe --record "$SCRATCH/rec1" > /dev/null 2> "$SCRATCH/e1")
rc=$?
[ $rc -eq 1 ] || fail "batch: exit $rc, not 1: $(cat "$SCRATCH/e1")"
grep -q -- "--record $SCRATCH/rec1: writing failed (File too large); stopped" "$SCRATCH/e1" ||
	fail "batch: no clear message: $(cat "$SCRATCH/e1")"
[ $(( $(date +%s) - start )) -lt 100 ] || fail "batch: ran on after the recording failed"

was=$(cat /proc/sys/kernel/task_delayacct)
on_exit "echo $was > /proc/sys/kernel/task_delayacct"
echo 0 > /proc/sys/kernel/task_delayacct
tmux_start "($LIMIT; exec $BIN -d 0.2 --no-probe --enable-delayacct --record $SCRATCH/rec2 2> $SCRATCH/e2)"
rc=$(wait_exit 60)
[ "$rc" = 1 ] || fail "full screen: exit $rc, not 1: $(cat "$SCRATCH/e2")"
grep -q -- "--record $SCRATCH/rec2: writing failed (File too large); stopped" "$SCRATCH/e2" ||
	fail "full screen: no clear message: $(cat "$SCRATCH/e2")"
[ "$(cat /proc/sys/kernel/task_delayacct)" = 0 ] || fail "--enable-delayacct not put back when the recording failed"
note "$(cat "$SCRATCH/e2")"
echo "PASS"
