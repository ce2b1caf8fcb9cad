#!/bin/bash
# The live screen at 80x24 keeps its point: four disks of this test's own
# (so the table takes four rows and only the probe's two lines fit above
# the process pane), the first probed back-to-back while a writer of its
# own writes to it. After ] the switch's line takes the place of the
# probe's second line ("waited behind ...") while it is fresh: first
# "measuring", then the short before/after line ("switch: reads/s ...").
# The writer's row names the disk it wrote to (DISK, beside COMMAND), and
# with kernel.task_delayacct 0 (left as it is) the pane's title says why
# IO-WAIT shows "-" and that D turns it on. Two rows taller, the switch
# line has a row of its own under the probe's second line. JSON's
# procs[].disk names the writer's disk too.
# suite-budget: 40
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/tmux.sh"
tui_loop 64 fill fio jq
D=$N
for _ in 1 2 3; do attach_loop 8; D="$D,$(basename "$LOOP")"; done
# The writer under a name of its own (fio's job process takes its
# parent's name): its row is found by it, whatever else runs here.
cp "$(command -v fio)" "$SCRATCH/iosched-wr80"
"$SCRATCH/iosched-wr80" --name=w --filename="$L" --rw=randwrite --bs=64k --direct=1 --ioengine=psync \
	--rate=30m --time_based --runtime=300 --output=/dev/null &
disown $! # killed by the cleanup: no job report

TMUX_W=80 TMUX_H=24 tmux_start "LANG=C.UTF-8 $BIN -d 0.5 --disk $D --probe $N --probe-rate max 2> $SCRATCH/stderr"
# The probe's lines are the selected disk's: select it first (the test's
# other loop devices may sort before it: loop0 was another test's when
# this one attached its first, and came back free for the next)
wait_for "^$N +\[" 10 || fail "no row for $N at 80x24"
select_disk "$N"
wait_for "^$N probe: steady" 10 || fail "no probe line for $N at 80x24"
wait_for "block latency: on" 5 || skip "the BPF part is off here: $(screen | grep -o 'block latency off: .*')"
keys / iosched-wr80 Enter
wait_for "iosched-wr80$" 5 || fail "the filter shows no row of the writer"

# probe_next: the line under the probe's line.
probe_next() { screen | grep -A1 -E "^$N probe: " | tail -n +2; }
# probe_after2: the one under that.
probe_after2() { screen | grep -A2 -E "^$N probe: " | tail -n +3; }

sleep 3 # the before window
from=$(sched_of "$N")
keys ']'
for _ in $(seq 300); do [ "$(sched_of "$N")" != "$from" ] && break; sleep 0.1; done
to=$(sched_of "$N")
[ "$to" != "$from" ] || fail "] did not switch"
wait_for "^$from->$to: measuring" 5 || fail "no measuring line at 80x24 after the switch"
[[ $(probe_next) == "$from->$to: measuring"* ]] || fail "the measuring line is not under the probe's line: $(probe_next)"
short="^switch: reads/s( [-+][0-9]+%| within noise| -)?, p50[^,]*, p99[^,]* \(n [0-9]+\)"
wait_for "$short" 14 || fail "no before/after line at 80x24 after the switch"
screen > "$SCRATCH/s.80x24"
[[ $(probe_next) =~ $short ]] || fail "the switch line is not under the probe's line: $(probe_next)"

# The writer's row, on the same screen: its disk before its name.
grep -qE "^ *[0-9]+ +root .* $N +iosched-wr80" "$SCRATCH/s.80x24" ||
	fail "no row of the writer naming $N: $(grep -E 'DISK|iosched-wr80' "$SCRATCH/s.80x24")"
grep -qE "^ +PID .* DISK +COMMAND" "$SCRATCH/s.80x24" || fail "no DISK column at 80 columns: $(grep -E '^ +PID' "$SCRATCH/s.80x24")"

# Why IO-WAIT is "-", on the pane's title, with the key; the title keeps
# its count and sort whole beside it (compact at 80 columns).
title=$(grep -E "^Processes" "$SCRATCH/s.80x24")
[[ $title =~ ^"Processes (all disks): "[0-9]+" by "[A-Z/-]+ ]] || fail "the pane's title lost its count or sort: $title"
if [ "$(cat /proc/sys/kernel/task_delayacct)" = 0 ]; then
	[[ $title == *"IO-WAIT off: D turns it on" ]] ||
		fail "the pane's title does not say why IO-WAIT is off: $title"
else
	[[ $title == *"IO-WAIT off"* ]] && fail "IO-WAIT said off with delay accounting on: $title"
	note "kernel.task_delayacct is on here (another program's): its line not checked"
fi

# Two rows more: the probe's second line is back, the switch line under it.
T resize-window -t main -x 80 -y 26
sleep 1
[[ $(probe_after2) =~ $short ]] || { screen; fail "at 80x26 the switch line is not under the probe's two lines: $(probe_after2)"; }
[[ $(probe_next) =~ $short ]] && fail "at 80x26 the switch line still takes the probe's second line"
keys q
[ "$(wait_exit 10)" = 0 ] || fail "exit not 0: $(cat "$SCRATCH/stderr")"
# JSON names the same disk for the writer's job process.
"$BIN" --json -n 6 -d 0.5 --disk "$N" --no-probe --procs 100000 > "$SCRATCH/out.json" 2> "$SCRATCH/err" ||
	fail "--json exited $?: $(cat "$SCRATCH/err")"
tail -n1 "$SCRATCH/out.json" | jq -e --arg n "$N" '[.procs[] | select(.comm == "iosched-wr80" and .disk == $n)] | length == 1' > /dev/null ||
	fail "JSON procs[].disk of the writer: $(tail -n1 "$SCRATCH/out.json" | jq -c '[.procs[] | select(.comm == "iosched-wr80") | {pid, disk, write_Bps}]')"
note "$(grep -E "^switch: " "$SCRATCH/s.80x24")"
note "$(grep -E " $N +iosched-wr80" "$SCRATCH/s.80x24" | head -n1)"
echo "PASS"
