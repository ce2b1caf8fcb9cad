#!/bin/bash
# A unit's I/O wait: in a service cgroup this test makes under the v2
# hierarchy, a fio QD1 4k psync random reader on a slow disk (a loop
# device on tests/lib/slowfs.py, 2 ms per request, so it waits nearly all
# the time), and an idle service beside it. With delay accounting on
# (--enable-delayacct), `--json`'s cgroups[] gives the reader's unit an
# io_wait_pct that is high (over 70) and equal, within rounding, to the
# sum of its processes' io_wait_pct in the same line's procs[]; the idle
# unit's is 0, known. With delay accounting off, it is null, and the
# source says why. kernel.task_delayacct is put back; every cgroup made
# is removed in the trap.
# suite-alone: it turns kernel.task_delayacct on (a setting of the whole machine) and checks it is put back
# suite-budget: 30
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd fio jq losetup
need_slowfs
[ -r /proc/sys/kernel/task_delayacct ] || skip "kernel without delay accounting"
setup_scratch

cgroup_v2

SLICE=iosched-wait-$$.slice
READER=reader-$$.service
IDLE=idle-$$.service
make_cgroups "$SLICE" "$SLICE/$READER" "$SLICE/$IDLE"

was=$(cat /proc/sys/kernel/task_delayacct)
on_exit "echo $was > /proc/sys/kernel/task_delayacct"
slow_loop 0.002 256 random; L=$SLOW

# idle: a process in the idle unit, started now (one started before delay
# accounting was on has no waits at all: not known)
idle() { in_cgroup "$SLICE/$IDLE" sleep 60; }

# Off first (only where it is off: another program may have it on).
if [ "$was" = 0 ]; then
	idle
	"$BIN" --json -d 0.5 -n 3 --no-probe --procs 5 > "$SCRATCH/off.json" 2> "$SCRATCH/err" || fail "the run with delay accounting off failed: $(cat "$SCRATCH/err")"
	jq -e --arg u "$IDLE" '.cgroups[] | select(.unit == $u) | .io_wait_pct == null' "$SCRATCH/off.json" | grep -q true ||
		fail "with delay accounting off, the idle unit's io_wait_pct is not null: $(jq -c --arg u "$IDLE" '.cgroups[] | select(.unit == $u)' "$SCRATCH/off.json" | tail -1)"
	tail -n1 "$SCRATCH/off.json" | jq -e --arg u "$IDLE" '.cgroups[] | select(.unit == $u) | .source | test("io_wait: not known \\(delay accounting is off")' > /dev/null ||
		fail "the source does not say why io_wait_pct is null"
fi

"$BIN" --json -d 1 -n 8 --no-probe --procs 50 --enable-delayacct > "$SCRATCH/out.json" 2> "$SCRATCH/err" &
P=$!
# Delay accounting is turned on in the background: the processes start
# once a line says it is on (one started before has no waits at all).
for _ in $(seq 100); do tail -n1 "$SCRATCH/out.json" 2>/dev/null | jq -e '.writers.delayacct' > /dev/null 2>&1 && break; sleep 0.1; done
tail -n1 "$SCRATCH/out.json" | jq -e '.writers.delayacct' > /dev/null 2>&1 || fail "delay accounting is not on after 10 s: $(cat "$SCRATCH/err")"
sleep 0.1
idle
in_cgroup "$SLICE/$READER" fio --name=r --filename="$L" --rw=randread --bs=4k --iodepth=1 --ioengine=psync --direct=1 \
	--time_based --runtime=5
FIO=$!
wait $FIO || fail "fio failed"
wait $P || fail "iosched-top exited $?: $(cat "$SCRATCH/err")"
[ "$(cat /proc/sys/kernel/task_delayacct)" = "$was" ] || fail "task_delayacct left at $(cat /proc/sys/kernel/task_delayacct)"

# Per line where the reader's unit waited: its io_wait_pct, and the sum of
# its processes' (fio's pids: FIO and its children, as listed then).
jq -c --arg u "$READER" '(.cgroups[] | select(.unit == $u and .io_wait_pct != null and .io_wait_pct > 0)) as $c
	| {unit: $c.io_wait_pct, procs: ([.procs[] | select(.comm == "fio" and .wait == "ok") | .io_wait_pct] | add // 0)}' \
	"$SCRATCH/out.json" > "$SCRATCH/lines"
[ -s "$SCRATCH/lines" ] || fail "the reader's unit never had an io_wait_pct: $(jq -c --arg u "$READER" '.cgroups[] | select(.unit == $u)' "$SCRATCH/out.json" | head -3)"
note "unit vs its processes' io_wait_pct, per line: $(jq -r '"\(.unit|floor)/\(.procs|floor)"' "$SCRATCH/lines" | xargs)"
top=$(jq -s 'map(.unit) | max' "$SCRATCH/lines")
awk -v p="$top" 'BEGIN { exit !(p > 70) }' || fail "the reader's unit io_wait_pct $top is not high"
jq -e 'select((.unit - .procs) | fabs > 0.5)' "$SCRATCH/lines" > /dev/null &&
	fail "a line's unit io_wait_pct differs from the sum of its processes': $(jq -c 'select((.unit - .procs) | fabs > 0.5)' "$SCRATCH/lines" | head -2)"
jq -e --arg u "$IDLE" '.cgroups[] | select(.unit == $u and .procs > 0) | .io_wait_pct' "$SCRATCH/out.json" | tail -n1 | grep -qx 0 ||
	fail "the idle unit's io_wait_pct is not 0: $(jq -c --arg u "$IDLE" '.cgroups[] | select(.unit == $u) | .io_wait_pct' "$SCRATCH/out.json" | xargs)"
echo "PASS"
