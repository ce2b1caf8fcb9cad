#!/bin/bash
# A scheduler switch made outside the tool counts as a switch: while a
# --read-only instance watches a loop device this test attaches, the test
# switches it by writing sysfs itself (as an admin's echo or a udev rule
# would). The instance logs it as an external switch (JSON event with
# "external": true and the right from/to), gives it the before/after
# comparison, and counts it in iosched_scheduler_switches_total; its own
# switches (--set, in a second run) are not called external, and with
# --disk a disk it leaves out is not reported when switched by hand.
# suite-budget: 25
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd jq losetup
setup_scratch

attach_loop 64 fill; L=$LOOP
N=$(basename "$L")
grep -qw kyber "/sys/block/$N/queue/scheduler" || skip "kyber is not offered here"
echo none > "/sys/block/$N/queue/scheduler"
P=$SCRATCH/iosched.prom
"$BIN" --read-only --json -d 0.5 -n 20 --disk "$N" --probe "$N" --probe-rate 100 --prometheus-textfile "$P" \
	> "$SCRATCH/out.json" 2> "$SCRATCH/err" &
TOOL=$!
on_exit "kill $TOOL 2>/dev/null"
sleep 4
echo kyber > "/sys/block/$N/queue/scheduler" || fail "could not switch $N by hand"
wait $TOOL || fail "exit $?: $(cat "$SCRATCH/err")"
jq -s -e --arg n "$N" '[.[].events[]? | select(.type == "scheduler" and .disk == $n)] |
	length == 1 and .[0].external == true and .[0].from == "none" and .[0].to == "kyber" and .[0].ok' \
	"$SCRATCH/out.json" > /dev/null || fail "no external switch event: $(jq -c '.events[]?' "$SCRATCH/out.json")"
tail -n1 "$SCRATCH/out.json" | jq -e '.disks[0].switch_compare | .from == "none" and .to == "kyber"
	and .before.n > 0 and .after.n > 0' > /dev/null ||
	fail "no before/after comparison: $(tail -n1 "$SCRATCH/out.json" | jq -c '.disks[0].switch_compare')"
grep -qx "iosched_scheduler_switches_total{disk=\"$N\"} 1" "$P" || fail "not counted: $(grep switches_total "$P")"
[ "$(sched_of "$N")" = kyber ] || fail "the read-only instance changed the scheduler back"

# The tool's own switch is not external; a disk --disk leaves out is not
# reported, though it is switched by hand during the run.
attach_loop 16; L2=$LOOP
"$BIN" --json -d 0.5 -n 6 --disk "$N" --set "$N=none" > "$SCRATCH/own.json" 2> "$SCRATCH/err" &
TOOL=$!
sleep 1.5
echo kyber > "/sys/block/$(basename "$L2")/queue/scheduler" || fail "could not switch $L2 by hand"
wait $TOOL || fail "--set run: exit $?: $(cat "$SCRATCH/err")"
jq -s -e '[.[].events[]? | select(.type == "scheduler")] | length == 1 and .[0].external == false' \
	"$SCRATCH/own.json" > /dev/null || fail "own switch: $(jq -c '.events[]?' "$SCRATCH/own.json")"
echo none > "/sys/block/$N/queue/scheduler"
echo PASS
