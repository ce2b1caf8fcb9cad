#!/bin/bash
# A recording replayed in the full screen, as an unprivileged user: the
# header says REPLAY, the chart carries the labelled marker of the switch
# made during the recorded run, Space pauses (the clock stops), . steps
# one tick, + and - change the speed, a switching key only says this is a
# replay (the scheduler of the recorded disk is not touched), q exits 0.
# suite-budget: 20
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/tmux.sh"
tui_loop 64 fill setpriv
other_sched "$N"
REC=$SCRATCH/run.rec
"$BIN" -b -d 0.5 -n 16 --disk "$N" --probe "$N" --probe-rate max --set "$N=$ALT" --record "$REC" > /dev/null 2>&1 ||
	fail "recording run failed"
echo none > "/sys/block/$N/queue/scheduler"
chmod 755 "$SCRATCH"; chmod 644 "$REC"
cp "$BIN" "$SCRATCH/iosched-top" && chmod 755 "$SCRATCH/iosched-top"
tmux_start "setpriv --reuid=65534 --regid=65534 --clear-groups $SCRATCH/iosched-top --replay $REC --replay-speed 0.5"
wait_for "REPLAY of .*run.rec \(x0.5\)" || fail "header does not say REPLAY"
wait_for "^$N .*$(sched_list_re "$N" "$ALT")" || fail "the recorded disk's row is not shown"
wait_for "(▶|>)$ALT" 10 || fail "no labelled marker of the recorded switch"
keys Space
wait_for "replay paused" || fail "Space did not pause"
c1=$(clock); sleep 2.5; c2=$(clock)
[ "$c1" = "$c2" ] || fail "the clock went on while paused ($c1 -> $c2)"
# Ticks are 0.5 s apart and the clock shows whole seconds: three steps
# move it for certain.
keys . . .
for _ in $(seq 300); do [ "$(clock)" != "$c1" ] && break; sleep 0.1; done
[ "$(clock)" != "$c1" ] || fail ". did not step"
wait_for "replay paused" || fail ". did not keep the replay paused"
keys +
wait_for "x1" || fail "+ did not double the speed"
keys - -
wait_for "x0.25" || fail "- did not halve the speed"
keys s
wait_for "this is a replay of a recording: keys that switch or tune are off" || fail "s not refused"
[ "$(sched_of "$N")" = none ] || fail "the replay changed $N's scheduler"
keys q
[ "$(wait_exit 10)" = 0 ] || fail "exit status not 0"
echo "PASS"
