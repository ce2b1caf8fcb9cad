#!/bin/bash
# w in the units pane changes a unit's bfq weight, end to end: the prompt,
# the worker's write and read-back, the status line, the pane, the event
# log, u, the exit report's revert line (run by sh) and --restore. This
# machine kind has no io.bfq.weight (the io controller is bound to cgroup
# v1), so the test build build/fakecg/iosched-top (make test-builds) is
# pointed at a fake v2 mount: a directory in the scratch space with
# cgroup.controllers naming io and SLICE/UNIT/io.bfq.weight as the kernel
# shows it ("default 100", a device's line). The unit itself is a real v2
# cgroup with a sleep in it (its /proc/PID/cgroup names it), removed in
# the trap. Bad values are refused with the accepted range. The unit's
# details show its io.max and io.latency limits.
# suite-budget: 20
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/tmux.sh"
need_root
need_cmd tmux
FAKE=$TOP/build/fakecg/iosched-top
[ -x "$FAKE" ] || skip "no test build with a fake cgroup root (make test-builds)"
setup_scratch

cgroup_v2

SLICE=iosched-weight-$$.slice
UNIT=weighted-$$.service
DIRS=("$SLICE" "$SLICE/$UNIT")
make_cgroups "${DIRS[@]}"
sh -c 'echo $$ > "$1/cgroup.procs" && exec sleep 300' sh "$CG/$SLICE/$UNIT" > /dev/null 2>&1 &

ROOT=$SCRATCH/cgroot
FILE=$ROOT/$SLICE/$UNIT/io.bfq.weight
mkdir -p "$ROOT/$SLICE/$UNIT"
echo "cpu io memory pids" > "$ROOT/cgroup.controllers"
printf 'default 100\n8:0 300\n' > "$FILE"
weight() { head -n1 "$FILE" | awk '{ print $NF }'; }

# start [OPTIONS]: the fake build on the fake root, the units pane sorted
# by WEIGHT (the unit is the only one with a weight: first), top row.
start() {
	TMUX_W=160 TMUX_H=40 tmux_restart "IOSCHED_TEST_CGROOT=$ROOT $FAKE -d 0.5 --no-probe $* 2> $SCRATCH/stderr"
	wait_for "Processes \(all disks\)" || fail "no process pane"
	keys U
	wait_for "^$UNIT +.* 100 " 5 || fail "the unit's weight 100 (from the fake root) is not shown"
	# one > at a time, each once the last one's sort is shown (under load
	# the screen lags, and presses ahead of it go past WEIGHT)
	local now
	for _ in $(seq 12); do
		now=$(screen | grep -oE "units sorted by [^ ,;]+" | head -1)
		[ "$now" = "units sorted by WEIGHT" ] && break
		keys '>'
		for _ in $(seq 40); do
			[ "$(screen | grep -oE "units sorted by [^ ,;]+" | head -1)" != "$now" ] && break
			sleep 0.05
		done
	done
	wait_for "units sorted by WEIGHT" 1 || fail "> did not reach the WEIGHT column"
	keys g
}
# ask VALUE: w, the offered value cleared, VALUE typed, Enter
ask() {
	keys w
	wait_for "io.bfq.weight \(1-1000, now [0-9]+\): [0-9]+_ +of $UNIT" || fail "w did not ask for the weight"
	keys BSpace BSpace BSpace BSpace "$1" Enter
}

start
ask 300
wait_for "$SLICE/$UNIT: io.bfq.weight 100 -> 300" || fail "the status line does not show the change"
[ "$(weight)" = 300 ] || fail "io.bfq.weight is '$(cat "$FILE")', not 300"
wait_for "^$UNIT +.* 300 " || fail "the pane does not show the new weight"
note "set: $(screen | grep -E "^$UNIT ")"

# Refused before any write: the range said.
ask 0
wait_for "io.bfq.weight: '0' is not accepted; give a whole number from 1 to 1000" || fail "0 was not refused with the range"
keys Escape
[ "$(weight)" = 300 ] || fail "a refused value changed the file: $(cat "$FILE")"

# The event log has it.
keys l
wait_for "io.bfq.weight $UNIT 100 -> 300" || fail "the event log does not list the change"
keys Escape

# u puts the old weight back.
keys u
wait_for "io.bfq.weight 300 -> 100 \(undo\)" || fail "u did not undo the change"
[ "$(weight)" = 100 ] || fail "after u, io.bfq.weight is '$(cat "$FILE")', not 100"

# Left in place at exit: listed, with a revert line that works.
ask 700
wait_for "io.bfq.weight 100 -> 700" || fail "the second change did not show"
keys q
[ "$(wait_exit)" = 0 ] || fail "q did not exit 0: $(cat "$SCRATCH/stderr")"
grep -q "cgroup $SLICE/$UNIT io.bfq.weight: 100 -> 700" "$SCRATCH/stderr" || fail "the exit report does not list it: $(cat "$SCRATCH/stderr")"
line=$(sed -n "s/^to revert: \(sudo \)\{0,1\}//p" "$SCRATCH/stderr")
[ -n "$line" ] || fail "no revert line: $(cat "$SCRATCH/stderr")"
note "revert line: $line"
[ "$(weight)" = 700 ] || fail "io.bfq.weight not left at 700: $(cat "$FILE")"
eval "$line" || fail "the revert line failed"
[ "$(weight)" = 100 ] || fail "the revert line left io.bfq.weight at '$(cat "$FILE")'"

# --restore puts it back at exit.
start --restore
ask 450
wait_for "io.bfq.weight 100 -> 450" || fail "the change with --restore did not show"
[ "$(weight)" = 450 ] || fail "io.bfq.weight is '$(cat "$FILE")', not 450"
keys q
[ "$(wait_exit)" = 0 ] || fail "q with --restore did not exit 0: $(cat "$SCRATCH/stderr")"
grep -q "restored 1 change(s), all settings are as they were" "$SCRATCH/stderr" || fail "no restore said: $(cat "$SCRATCH/stderr")"
[ "$(weight)" = 100 ] || fail "--restore left io.bfq.weight at '$(cat "$FILE")'"

# io.max and io.latency in the unit's details: the settings that limit, a
# device by its name where this machine has it (vda's numbers), by its
# numbers where not; "max" settings left out. And io.stat beside the
# processes' bytes (a fake one: its figure appears from the second reading).
DEV=$(cat /sys/block/vda/dev 2>/dev/null || echo 8:0)
NAME=$(basename "$(readlink "/sys/dev/block/$DEV")" 2>/dev/null)
printf '%s rbps=max wbps=1048576 riops=max wiops=120\n' "$DEV" > "$ROOT/$SLICE/$UNIT/io.max"
printf '%s target=0\n250:7 target=10000\n' "$DEV" > "$ROOT/$SLICE/$UNIT/io.latency"
start
keys Enter
wait_for "unit details" || fail "Enter did not show the unit's details"
wait_for "io.max: ${NAME:-$DEV} wbps=1048576 wiops=120" || fail "the details do not show io.max"
wait_for "io.latency: 250:7 target=10000" || fail "the details do not show io.latency"
keys Escape q
[ "$(wait_exit)" = 0 ] || fail "q did not exit 0: $(cat "$SCRATCH/stderr")"
echo PASS
