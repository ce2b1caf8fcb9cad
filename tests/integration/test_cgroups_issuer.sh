#!/bin/bash
# Processes that ended unseen, counted in the unit they issued their
# requests from. In a slice this test makes under the v2 hierarchy, a
# launcher shell lives in launch-PID.service (the listings see it there);
# right after a refresh it starts WRITERS writers that each move
# themselves into direct-PID.service (as systemd-run --scope does) and
# then become a dd writing MIB MiB with O_DIRECT into a file on an ext4
# filesystem on a loop device of the test's own. They end well before the
# next refresh: no listing sees them, and their exit records name the
# launcher's cgroup (a process is taken to stay in its parent's). Summed
# over the run, the unit's write bytes in `--json`'s cgroups[] are within
# 5 % of what its writers wrote and its source says they came from the
# BPF part's issuer; the launcher's unit got under 5 % of them. Without
# the BPF part the test is skipped with the reason.
# Every cgroup made is removed in the trap, on failure too.
# suite-budget: 30
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd jq losetup mkfs.ext4 mount dd
setup_scratch

cgroup_v2

WRITERS=3 MIB=16
SLICE=iosched-issuer-$$.slice
LAUNCH=launch-$$.service UNIT=direct-$$.service
make_cgroups "$SLICE" "$SLICE/$LAUNCH" "$SLICE/$UNIT"
ext4_loop 256

OUT=$SCRATCH/out.json
json_with_blk "$OUT" -d 1 --no-probe --procs 5

# The writers, each moving itself into the unit before it becomes dd.
writers() {
	for i in $(seq "$WRITERS"); do
		sh -c 'echo $$ > "$1/cgroup.procs" && exec dd if=/dev/zero of="$2" bs=1M count="$3" oflag=direct status=none' \
			sh "$CG/$SLICE/$UNIT" "$MNT/w.$i" "$MIB" &
	done
}
launch_unseen "$SLICE/$LAUNCH" "$OUT" writers
wait "$LAUNCHER" || fail "the writers failed"
sleep 2.5 # the exit records' interval, written
kill -INT "$TOOL"
wait "$TOOL"
[ -s "$OUT" ] || fail "no JSON: $(cat "$SCRATCH/err")"

wrote=$((WRITERS * MIB << 20))
# written PATH: the cgroup PATH's write bytes summed over the readings
written() {
	jq -rs --arg p "$1" '[.[] | (.writers.walk_s // .interval_s) as $dt | .cgroups[] | select(.path == $p) | .write_Bps * $dt] | add // 0' "$OUT"
}
got=$(written "$SLICE/$UNIT")
launcher=$(written "$SLICE/$LAUNCH")
note "wrote $wrote bytes; the unit $got, the launcher's unit $launcher"
note "the unit's source: $(jq -rs --arg p "$SLICE/$UNIT" '[.[] | .cgroups[] | select(.path == $p) | .source] | last // ""' "$OUT")"
within "$got" "$wrote" 5 || fail "the unit's write bytes $got are not within 5 % of $wrote (the launcher's unit: $launcher)"
awk -v l="$launcher" -v w="$wrote" 'BEGIN { exit !(l < w * 0.05) }' || fail "the launcher's unit got $launcher of the $wrote bytes"
jq -rs --arg p "$SLICE/$UNIT" '.[] | .cgroups[] | select(.path == $p) | .source' "$OUT" |
	grep -q "processes that ended unseen: the cgroup they issued block requests from (BPF)" ||
	fail "the unit's source does not say the BPF part named it"
echo "PASS"
