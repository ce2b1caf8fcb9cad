#!/bin/bash
# The A/B's three readers: a short run of none against another scheduler
# (bfq where offered, else kyber) on a loop
# device this test makes, with the built-in writer. The JSON has, in the
# summary and each phase, the steady, fresh and paced figures; a verdict
# per reader and the trade-off sentence; and the readers were processes of
# their own: one steady reader for the whole run (the same pid in both
# phases), a new process for every fresh job, none of them the tool.
# suite-budget: 30
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd jq losetup mkfs.ext4 mount
setup_scratch

attach_loop 1024 fill; L=$LOOP
N=$(basename "$L")
other_sched "$N"
mkfs.ext4 -q -E nodiscard "$L" || fail "mkfs failed"
mount_scratch "$L" "$SCRATCH/mnt"

"$BIN" --ab "none,$ALT" --disk "$N" --rounds 1 --dwell 4 --warmup 1 --load-size 128M --fresh-reads 300 --format json \
	> "$SCRATCH/ab.json" 2> "$SCRATCH/ab.err" &
TOOL=$!
wait $TOOL || fail "A/B exited $?: $(cat "$SCRATCH/ab.err")"
J="$SCRATCH/ab.json"
jq -e '.fresh_reads == 300 and .rate_hz == 30 and .partial == false' "$J" > /dev/null ||
	fail "header: $(jq -c 'del(.summary, .phases, .verdict)' "$J")"

# Every row has the three readers with every figure named by the issue.
jq -e '[.summary[], .phases[]] | length == 4 and all(.[];
	(.steady | has("reads_per_s") and has("p50_us") and has("p50_per_s_us") and has("p99_us") and has("mean_us")
		and has("stall_10ms") and has("stall_100ms") and has("max_us"))
	and (.fresh | has("runs") and has("job_ms_median") and has("job_ms_min") and has("job_ms_max"))
	and (.paced | has("n") and has("p50_us") and has("p99_us")))' "$J" > /dev/null ||
	fail "a reader's figures are missing: $(jq -c '.summary' "$J")"
jq -e 'all(.phases[]; .steady.reads_per_s > 0 and .steady.p50_us > 0 and .steady.p50_per_s_us > 0
	and .steady.stall_10ms >= 0 and .steady.stall_10ms <= 1 and .steady.stall_100ms <= .steady.stall_10ms
	and .steady.max_us >= .steady.p50_us and .fresh.runs >= 1 and .fresh.job_ms_min > 0
	and .fresh.job_ms_min <= .fresh.job_ms_median and .fresh.job_ms_median <= .fresh.job_ms_max
	and .paced.n >= 20 and .paced.p50_us > 0)' "$J" > /dev/null ||
	fail "implausible figures: $(jq -c '[.phases[] | {steady, fresh, paced}]' "$J")"
# A greedy QD1 reader's mean is its period: mean x reads/s is about 1 s
# (a little below: the time between reads, and the steady reader pauses
# for nothing else).
jq -e 'all(.phases[]; (.steady.mean_us * .steady.reads_per_s / 1e6) as $busy | $busy > 0.5 and $busy <= 1.05)' "$J" \
	> /dev/null || fail "mean and reads/s disagree: $(jq -c '[.phases[].steady | {mean_us, reads_per_s}]' "$J")"

# Verdicts: one per reader and figure, with the fields of a statistical
# claim; one round can decide nothing, and each says it needs 6.
jq -e '[.verdict[] | "\(.profile) \(.figure)"] == ["steady reads_per_s", "steady stall_100ms", "fresh job_ms",
		"paced p50_us", "paced p99_us"]
	and all(.verdict[]; (.text | length > 10) and has("best") and has("decided") and has("ratio")
		and has("ratio_lo") and has("ratio_hi") and has("rounds_needed"))
	and all(.verdict[]; .decided == false and .best == null and .ratio_lo == null)
	and all(.verdict[] | select(.ratio != null); .rounds_needed == 6 and (.text | test("the test needs 6")))
	and (.readers | length == 3) and .test.min_rounds == 6 and .aa == false
	and (.tradeoff | length == 1) and (.tradeoff[0] | startswith($alt + " against none: new readers: "))' --arg alt "$ALT" "$J" \
	> /dev/null || fail "verdict: $(jq -c '{verdict, readers, tradeoff}' "$J")"

# Processes: one steady and one paced reader across both phases, a new
# process per fresh job, and none of them the tool itself.
jq -e --argjson tool "$TOOL" '
	([.phases[].steady.pid] | unique | length == 1) and ([.phases[].paced.pid] | unique | length == 1)
	and ([.phases[].fresh.pids[]] as $f | ($f | length) == ($f | unique | length)
		and ($f | length) == ([.phases[].fresh.runs] | add)
		and all($f[]; . != $tool)
		and ([.phases[0].steady.pid, .phases[0].paced.pid] - $f | length == 2))
	and .phases[0].steady.pid != .phases[0].paced.pid and .phases[0].steady.pid != $tool' "$J" > /dev/null ||
	fail "reader processes: tool $TOOL, $(jq -c '[.phases[] | {s: .steady.pid, p: .paced.pid, f: .fresh.pids}]' "$J")"
[ "$(sched_of "$N")" = none ] || fail "disk left on $(sched_of "$N")"
note "$(jq -r '.tradeoff[0]' "$J")"
echo "PASS"
