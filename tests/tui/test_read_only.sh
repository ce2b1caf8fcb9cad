#!/bin/bash
# --read-only (issue 19): a pure monitor. Every key that would change the
# system says "read-only mode" and changes nothing: the loop device this
# test attaches keeps its scheduler and queue settings, delay accounting
# stays as it was, no udev file is written; the status line says
# read-only; keys that only read (the probe's pace) still work.
# suite-budget: 10
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/tmux.sh"
tui_loop 64 fill
was_sched=$(sched_of "$N")
was_nr=$(cat "/sys/block/$N/queue/nr_requests")
was_da=$(cat /proc/sys/kernel/task_delayacct)
RULES=$SCRATCH/60-test.rules
tmux_start "$BIN --read-only -d 0.5 --disk $N --probe $N --udev-rules-file $RULES"
wait_for "^$N " 10 || fail "no row for $N"
wait_for "read-only" 5 || fail "the status line does not say read-only"
for k in ']' '[' s u D A L S i; do
	keys "$k"
	wait_for "read-only mode \(--read-only\): keys that change the system are off" 3 ||
		fail "key $k was not refused"
	keys Escape
done
# t shows the tunables, read-only: Enter on one says so and writes nothing.
keys t
wait_for "$N tunables" 3 || fail "t did not show the tunables in read-only mode"
wait_for "nr_requests +$was_nr" 3 || fail "the tunables panel lacks nr_requests $was_nr"
keys Enter
wait_for "tunables are shown, not changed" 3 || fail "Enter in the read-only tunables panel was not refused"
keys Escape
# x: --disk names the disks shown, and x says it adds none.
keys x
wait_for "x shows no others" 3 || fail "x under --disk claimed to show every disk"
keys P
sleep 0.5
keys w
sleep 0.5
[ ! -e "$RULES" ] || fail "P then w wrote $RULES in read-only mode"
keys Escape
keys R
wait_for "probe pace: 100 Hz" 3 || fail "R (the probe's pace, only reads) was refused"
sleep 1.5 # a refused change would have been carried out by now
[ "$(sched_of "$N")" = "$was_sched" ] || fail "the scheduler changed: $(sched_of "$N")"
[ "$(cat "/sys/block/$N/queue/nr_requests")" = "$was_nr" ] || fail "nr_requests changed"
[ "$(cat /proc/sys/kernel/task_delayacct)" = "$was_da" ] || fail "task_delayacct changed"
keys q
[ "$(wait_exit 10)" = 0 ] || fail "exit not 0"
echo "PASS"
