#!/bin/bash
# The effect of a switch in numbers (issue 15), in tmux on a loop device
# this test attaches, probed back-to-back: the probe line names the
# profile (steady) with reads/s and the time spent in slow reads; after ]
# a line says it is measuring while the after window fills (no change
# shown before 10 s), then compares the 10 s before the switch with the
# 10 s after it (reads/s, p50, p99, each with its change or "within
# noise" when the before window's own halves moved as much, the p99 with
# the reads behind it), fits 80 columns up to the p99, and stays until the
# next switch, which replaces it. F starts a
# fresh reader: its job time is said and marked on the chart, and jobs
# before and after a switch are compared on the comparison's line.
# suite-budget: 30
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/tmux.sh"
tui_loop 64 fill jq
tmux_start "LANG=C.UTF-8 $BIN -d 0.5 --disk $N --probe $N --probe-rate max --fresh-reads 500 --record $SCRATCH/rec 2> $SCRATCH/stderr"
wait_for "^$N probe: steady \(max\), device, QD1 4K: 10s p50 [^,]+, [0-9]+ reads/s, in reads >10ms [0-9]+% >100ms [0-9]+%" 10 ||
	fail "the probe line lacks the profile or the time-based figures"
screen | grep -qE "^[a-z-]+->[a-z-]+: |^switch: " && fail "a switch comparison before any switch"
sleep 3 # some seconds for the before window
from=$(sched_of "$N")
keys ']'
for _ in $(seq 300); do [ "$(sched_of "$N")" != "$from" ] && break; sleep 0.1; done
to=$(sched_of "$N")
[ "$to" != "$from" ] || fail "] did not switch"
num='[0-9.]+[mu]?s'
chg='( [-+][0-9]+%| within noise)?'
wait_for "^$from->$to: measuring \([0-9] s of 10\); [0-9]+s before: reads/s [0-9]+, p50 $num, p99 ($num|-) \(n [0-9]+\)" 5 ||
	fail "no measuring line after the switch"
line=$(screen | grep -E "^$from->$to: ")
before_s=$(echo "$line" | sed -nE 's/.*; ([0-9]+)s before: .*/\1/p')
[ "$before_s" -ge 2 ] || fail "before window of $before_s s after 3 s of probing: $line"
screen | grep -qE "^$from->$to: reads/s" && fail "a change shown before the after window is full"
full="^$from->$to: reads/s [0-9]+->[0-9]+$chg, p50 ($num|-)->($num|-)$chg, p99 ($num|-)->($num|-)$chg \(n [0-9]+/[0-9]+\)"
short="^switch: reads/s( [-+][0-9]+%| within noise| -)?, p50[^,]*, p99[^,]* \(n [0-9]+\)"
wait_for "$full|$short" 14 || fail "the after window did not complete in 10 s"
sleep 1.5
screen | grep -qE "$full|$short" || fail "the completed comparison did not stay"
# At 80 columns the line keeps reads/s, p50, p99 and the reads behind it.
T resize-window -t main -x 80 -y 40
wait_for "$short( |$)" 3 || fail "no short comparison at 80 columns: $(screen | grep -E '^switch|->')"
[ "$(screen | grep -E "^switch: " | sed -E 's/ +$//' | awk '{ print length }')" -le 80 ] || fail "wider than 80"
T resize-window -t main -x 120 -y 40

# A fresh reader before the next switch and one after it: their job times
# join the comparison ("fresh job" before->after).
keys F
wait_for "$N: fresh reader: 500 reads in [0-9.]+ ms" 10 || fail "no fresh reader time on the status line"
wait_for "◆F[0-9.]+[mu]?s" 3 || fail "no fresh reader mark on the chart"
keys ']'
for _ in $(seq 300); do [ "$(sched_of "$N")" != "$to" ] && break; sleep 0.1; done
next=$(sched_of "$N")
wait_for "^$to->$next: " 5 || fail "the next switch did not replace the comparison"
screen | grep -qE "^$from->$to: " && fail "the old comparison is still shown"
screen | grep -qE "fresh job [0-9]+ms->-" || fail "the fresh job before the switch is not in the comparison: $(screen | grep -E "^$to->")"
sleep 0.6 # the status line's first job time goes before the second's
keys F
wait_for "fresh job [0-9]+ms->[0-9]+ms( [-+][0-9]+%)?" 10 || fail "no fresh job before->after in the comparison"
keys q
[ "$(wait_exit)" = 0 ] || fail "exit not 0: $(cat "$SCRATCH/stderr")"
# The comparison is kept in the recording, and a replay's JSON has it.
"$BIN" --replay "$SCRATCH/rec" --json > "$SCRATCH/replay.json" 2> "$SCRATCH/replay.err" ||
	fail "replay exited $?: $(cat "$SCRATCH/replay.err")"
tail -n1 "$SCRATCH/replay.json" | jq -e --arg a "$to" --arg b "$next" '.disks[0].switch_compare |
	.from == $a and .to == $b and .profile == "steady" and .before.n > 0 and .after.reads_per_s > 0
	and .before.fresh_runs >= 1 and .after.fresh_runs >= 1 and .after.fresh_job_ms_median > 0' >/dev/null ||
	fail "switch_compare in the replay's JSON: $(tail -n1 "$SCRATCH/replay.json" | jq -c .disks[0].switch_compare)"
note "$(echo "$line" | cut -c1-160)"
echo "PASS"
