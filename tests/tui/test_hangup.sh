#!/bin/bash
# The terminal goes away: the full screen with a --set and --restore,
# started through su and in a session of its own (setsid: as su to another
# user leaves it, outside the terminal's session, so no SIGHUP reaches it);
# the tmux server is killed. The tool must see its input hang up and end
# with its usual clean-up within 3 s: gone, the scheduler put back. (It
# used to spin at 55-76 % CPU on the dead terminal until killed by hand.)
# suite-budget: 10
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/tmux.sh"
need_root
need_cmd tmux losetup su setsid pgrep
setup_scratch

attach_loop 16; N=$(basename "$LOOP")
grep -qw kyber "/sys/block/$N/queue/scheduler" || skip "kyber is not offered here"
echo none > "/sys/block/$N/queue/scheduler"
tmux_start "su root -s /bin/sh -c 'setsid -w $BIN -d 0.5 --disk $N --probe $N --set $N=kyber --restore 2> $SCRATCH/stderr'"
wait_for "^$N +loop" 10 || fail "no row for $N"
[ "$(sched_of "$N")" = kyber ] || fail "--set did not apply"
pid=$(pgrep -f -n "^$BIN -d 0.5 --disk $N ") || fail "cannot find the tool's process"
on_exit "kill -9 $pid 2>/dev/null"
T kill-server
for _ in $(seq 30); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$pid" 2>/dev/null; then
	fail "still running 3 s after its terminal went away ($(ps -o pcpu=,stat= -p "$pid") %CPU, state)"
fi
[ "$(sched_of "$N")" = none ] || fail "the scheduler was not put back: $(sched_of "$N")"
echo PASS
