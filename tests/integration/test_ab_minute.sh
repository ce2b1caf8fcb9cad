#!/bin/bash
# The A/B with its defaults, as a user first runs it on a loop device with
# ext4 and the built-in load: a whole run of 6 rounds of none against
# another scheduler (bfq where offered, else kyber); where that is bfq, bfq
# ahead on the fresh readers' job time (many times faster on this kind of
# disk when it has the disk to itself; beside the suite's other tests, which
# load the same backing disk below the loop device, less: whether it was
# decided is noted, not required; make check-guest checks it on a disk of
# its own, in the guest, where bfq is), and every verdict's two figures and its ratio are
# one estimate (the ratio is the figures' ratio). The wall time is noted;
# the minute and the decisions are measured by bench/ab-calibration, which
# prints them beside the false positives.
# suite-budget: 90
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd jq losetup mkfs.ext4 mount
setup_scratch

attach_loop 1024 fill; L=$LOOP N=$(basename "$LOOP")
other_sched "$N"
mkfs.ext4 -q -E nodiscard "$L" || fail "mkfs failed"
mount_scratch "$L" "$SCRATCH/mnt"

t0=$SECONDS
"$BIN" --ab "none,$ALT" --disk "$N" --load-size 256M --load-dir "$SCRATCH/mnt" --format json > "$SCRATCH/ab.json" \
	2> "$SCRATCH/ab.err" || fail "A/B exited $?: $(cat "$SCRATCH/ab.err")"
wall=$((SECONDS - t0))
J=$SCRATCH/ab.json
jq -e '.partial == false and .rounds == 6 and (.phases | length) == 12' "$J" > /dev/null ||
	fail "not a whole default run: $(jq -c 'del(.summary, .phases, .verdict, .readers, .noise)' "$J")"
if [ "$ALT" = bfq ]; then
	jq -e '.verdict[] | select(.figure == "job_ms") | .leader == "bfq" and .ratio > 1' "$J" > /dev/null ||
		fail "bfq's fresh readers not ahead: $(jq -c '.verdict[] | select(.figure == "job_ms")' "$J")"
fi
# One estimate per sentence: ratio (printed to 3 decimals) = the leader's
# figure / the other's (higher is better for reads/s, lower for the rest).
jq -e '[.verdict[] | select(.leader != null)] | all(.[]; (.leader_value | type) == "number"
	and (.against_value | type) == "number")' "$J" > /dev/null ||
	fail "a measured verdict without its two figures: $(jq -c '[.verdict[] | {figure, leader_value, against_value}]' "$J")"
bad=$(jq -r '.verdict[] | select(.leader != null) |
	(if .figure == "reads_per_s" then .leader_value / .against_value else .against_value / .leader_value end) as $r |
	select(($r - .ratio | fabs) > 0.0006) | "\(.figure): ratio \(.ratio), figures give \($r): \(.text)"' "$J")
[ -z "$bad" ] || fail "a ratio disagrees with its figures: $bad"
jq -e '[.verdict[] | select(.leader != null)] | length >= 4' "$J" > /dev/null || fail "too few verdicts measured"
note "$(jq -r '.verdict[] | select(.figure == "job_ms") | .text' "$J"); wall $wall s"
[ "$(sched_of "$N")" = none ] || fail "disk left on $(sched_of "$N")"
echo "PASS"
