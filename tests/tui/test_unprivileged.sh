#!/bin/bash
# Run as an unprivileged user: the header says why block latency is off,
# the picker opens, the switch is refused with
# the "needs root" message, and the program keeps running (the clock still
# ticks) until q.
# suite-budget: 10
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/tmux.sh"
tui_loop 16 setpriv
chmod 755 "$SCRATCH"
cp "$BIN" "$SCRATCH/iosched-top" && chmod 755 "$SCRATCH/iosched-top"
tmux_start "setpriv --reuid=65534 --regid=65534 --clear-groups $SCRATCH/iosched-top -d 0.5 --disk $N --no-probe"
wait_for "^$N +loop" || fail "no row for $N"
wait_for "block latency off: needs root or cap_bpf,cap_perfmon" || fail "header does not say why block latency is off"
wait_for "without I/O figures \(other users': needs root" || fail "the process pane does not say why other rows are empty"
keys s
wait_for "$N scheduler" || fail "picker did not open"
keys k
wait_for "cannot set $N scheduler to kyber: Permission denied \(switching needs root\)" || fail "no needs-root message"
[ "$(sched_of "$N")" = none ] || fail "scheduler changed"
c1=$(clock); sleep 1.2; c2=$(clock)
[ "$c1" != "$c2" ] || fail "stopped running after the refusal"
keys q
rc=$(wait_exit)
[ "$rc" = 0 ] || fail "exit $rc"
echo "PASS"
