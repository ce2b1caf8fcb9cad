#!/bin/bash
# The effect of a switch in numbers (issue 15), in tmux on a loop device
# this test attaches, probed back-to-back: the probe line names the
# profile (steady) with reads/s and the time spent in slow reads; after ]
# a line compares the 10 s before the switch with the time after it
# (reads/s, p50, p99, each with its change), counts the after window up to
# 10 s, then stays until the next switch, which replaces it. F starts a
# fresh reader: its job time is said and marked on the chart.
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/tmux.sh"
need_root
need_cmd tmux losetup
setup_scratch

attach_loop 64 fill; L=$LOOP
N=$(basename "$L")
tmux_start "LANG=C.UTF-8 $BIN -d 0.5 --disk $N --probe $N --probe-rate max --fresh-reads 500 2> $SCRATCH/stderr"
wait_for "^$N probe: steady \(max\), device, QD1 4K: 10s p50 [^,]+, [0-9]+ reads/s, in reads >10ms [0-9]+% >100ms [0-9]+%" 10 ||
	fail "the probe line lacks the profile or the time-based figures"
screen | grep -qE "^[a-z-]+->[a-z-]+ steady, " && fail "a switch comparison before any switch"
sleep 3 # some seconds for the before window
from=$(sched_of "$N")
keys ']'
for _ in $(seq 50); do [ "$(sched_of "$N")" != "$from" ] && break; sleep 0.1; done
to=$(sched_of "$N")
[ "$to" != "$from" ] || fail "] did not switch"
num='[0-9.]+[mu]?s'
wait_for "^$from->$to steady, [0-9]+s before vs [0-9]s after: reads/s [0-9]+->[0-9]+( [-+][0-9]+%)?, p50 $num->$num( [-+][0-9]+%)?, p99 $num->$num" 5 ||
	fail "no before/after line after the switch"
line=$(screen | grep -E "^$from->$to ")
before_s=$(echo "$line" | sed -nE 's/.* steady, ([0-9]+)s before.*/\1/p')
[ "$before_s" -ge 2 ] || fail "before window of $before_s s after 3 s of probing: $line"
wait_for "^$from->$to steady, [0-9]+s before vs 10s after: reads/s " 14 ||
	fail "the after window did not complete in 10 s"
sleep 1.5
screen | grep -qE "^$from->$to .* vs 10s after: " || fail "the completed comparison did not stay"

keys ']'
for _ in $(seq 50); do [ "$(sched_of "$N")" != "$to" ] && break; sleep 0.1; done
next=$(sched_of "$N")
wait_for "^$to->$next steady, " 5 || fail "the next switch did not replace the comparison"
screen | grep -qE "^$from->$to " && fail "the old comparison is still shown"

keys F
wait_for "$N: fresh reader: 500 reads in [0-9.]+ ms" 10 || fail "no fresh reader time on the status line"
wait_for "◆F[0-9.]+[mu]?s" 3 || fail "no fresh reader mark on the chart"
keys q
[ "$(wait_exit)" = 0 ] || fail "exit not 0: $(cat "$SCRATCH/stderr")"
note "$(echo "$line" | cut -c1-160)"
echo "PASS"
