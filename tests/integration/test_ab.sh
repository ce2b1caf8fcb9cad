#!/bin/bash
# The A/B runner on a loop device this test makes (ext4 on it for the
# built-in write load): the JSON report has every variant and phase in the
# balanced order, the load ran, the disk is back on its scheduler, no
# scratch file is left; md and csv have their tables; a scheduler the disk
# does not have, and a load that does not fit, are refused before anything
# changes; SIGINT in a phase gives a partial report and restores.
# suite-budget: 55
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd jq losetup mkfs.ext4 mount
setup_scratch

ext4_loop 1024
clean() { [ "$(ls -A "$SCRATCH/mnt" | grep -v lost+found)" = "" ]; }
other_sched "$N" # ALT: bfq where offered, else kyber; ALT_TUNE one of its settings
V="$ALT:$ALT_TUNE"

"$BIN" --ab "none,$V" --disk "$N" --rounds 2 --dwell 2 --warmup 0.5 --load-size 128M --fresh-reads 100 --format json \
	> "$SCRATCH/ab.json" 2> "$SCRATCH/ab.err" || fail "A/B exited $?: $(cat "$SCRATCH/ab.err")"
jq -e . "$SCRATCH/ab.json" > /dev/null || fail "report is not JSON"
# The paced reader reads fast enough for a p99 in a 2 s phase (120 reads).
jq -e --arg n "$N" '.version == 1 and .disk == $n and .partial == false and .restored == "none" and (.load | test("^write"))
	and .rate_hz == 60' "$SCRATCH/ab.json" > /dev/null || fail "report header wrong: $(jq -c 'del(.summary, .phases)' "$SCRATCH/ab.json")"
jq -e --arg v "$V" '[.summary[].scheduler] == ["none", $v] and all(.summary[]; .n > 0 and .p50_us > 0)' \
	"$SCRATCH/ab.json" > /dev/null || fail "summary wrong: $(jq -c .summary "$SCRATCH/ab.json")"
# The load ran (none's phases wrote) and the reader read, over each
# variant's phases. Not the writer in the other variant's phases: bfq may
# serve the readers for a whole 2 s phase (seen: 0 MB/s written in one,
# then in both bfq:low_latency=0 phases, with the three readers; the reader
# at 383 reads in another run). The report shows that as it is.
jq -e --arg v "$V" '[.phases[] | [.scheduler, .round]] == [["none",1],[$v,1],[$v,2],["none",2]]
	and all(.phases[] | select(.scheduler == "none"); .n > 0 and .write_MBps > 0)
	and all(.summary[]; .n > 0)' "$SCRATCH/ab.json" > /dev/null ||
	fail "phases wrong: $(jq -c '[.phases[] | {scheduler, round, n, write_MBps}]' "$SCRATCH/ab.json")"
[ "$(sched_of "$N")" = none ] || fail "disk left on $(sched_of "$N")"
clean || fail "scratch files left: $(ls -A "$SCRATCH/mnt")"
note "$(jq -r '.summary[] | "\(.scheduler): p50 \(.p50_us) us, write \(.write_MBps) MB/s"' "$SCRATCH/ab.json" | tr '\n' ';')"

"$BIN" --ab none,kyber --disk "$N" --rounds 1 --dwell 1.5 --warmup 0 --load none --format md --startup true \
	--startup-runs 2 > "$SCRATCH/ab.md" || fail "md run failed"
grep -q "^| variant (all phases) | round |" "$SCRATCH/ab.md" || fail "md table missing"
grep -q "^- queue settings not named by a variant: nr_requests [0-9]" "$SCRATCH/ab.md" || fail "md lacks the queue settings"
grep -qE "^- kyber +[0-9.]+ / [0-9.]+ / [0-9.]+ \(2\)" "$SCRATCH/ab.md" || fail "md lacks cold starts min/median/max"
"$BIN" --ab none,kyber --disk "$N" --rounds 1 --dwell 1 --warmup 0 --load none --format csv > "$SCRATCH/ab.csv" ||
	fail "csv run failed"
head -n1 "$SCRATCH/ab.csv" | grep -q "^kind,variant,round,n,p50_us,mean_us" || fail "csv header wrong"
[ "$(grep -c '^phase,' "$SCRATCH/ab.csv")" -eq 2 ] || fail "csv lacks the phases"
[ "$(grep -c '^verdict,' "$SCRATCH/ab.csv")" -eq 5 ] || fail "csv lacks the verdicts: $(cat "$SCRATCH/ab.csv")"

# An A/A: the same setting twice is allowed, told apart, and reported as
# an A/A with this disk's noise.
"$BIN" --ab none,none --disk "$N" --rounds 1 --dwell 1 --warmup 0 --load none > "$SCRATCH/aa.txt" 2>&1 ||
	fail "A/A run failed: $(cat "$SCRATCH/aa.txt")"
grep -q "A/A: every variant is the same setting, so a verdict decided here is a false positive" "$SCRATCH/aa.txt" &&
	grep -q "^none#2 against none#1: " "$SCRATCH/aa.txt" && grep -q "^this disk's noise with these settings:" "$SCRATCH/aa.txt" ||
	fail "A/A report: $(cat "$SCRATCH/aa.txt")"

# The fsync load, a baseline without load first, and cold-start timing.
"$BIN" --ab none,kyber --disk "$N" --rounds 1 --dwell 1.5 --warmup 0.2 --load fsync --load-size 64M --fresh-reads 100 --baseline \
	--startup true --startup-runs 2 --format json > "$SCRATCH/b.json" || fail "baseline/startup run failed"
jq -e '[.phases[] | .round] == [0, 0, 1, 1] and all(.phases[]; .n > 0)
	and all(.phases[] | select(.round == 1); .write_MBps > 0) and all(.summary[]; .startup_s > 0)' \
	"$SCRATCH/b.json" > /dev/null || fail "baseline/startup report wrong: $(jq -c '[.phases[] | {round, n, write_MBps, startup_s}]' "$SCRATCH/b.json")"
# timed cold starts are a reader of the verdict; without --startup, none is listed
jq -e '([.verdict[] | select(.figure == "cold_start_s" and .profile == "cold")] | length) == 1
	and ([.readers[] | select(.profile == "cold")] | length) == 1 and (.next.uses | has("cold"))' "$SCRATCH/b.json" > /dev/null ||
	fail "--startup's cold starts not in the verdict: $(jq -c '[.verdict[] | .figure], .next.uses' "$SCRATCH/b.json")"
jq -e '([.verdict[] | select(.figure == "cold_start_s")] | length) == 0 and (.next.uses | has("cold") | not)' \
	"$SCRATCH/ab.json" > /dev/null || fail "cold starts listed without --startup: $(jq -c '[.verdict[] | .figure]' "$SCRATCH/ab.json")"
clean || fail "fsync load left files"

out=$("$BIN" --ab none,nosuchsched --disk "$N" 2>&1); rc=$?
[ $rc -eq 2 ] || fail "unknown scheduler: exit $rc"
echo "$out" | grep -q "offers no scheduler 'nosuchsched'" || fail "unknown scheduler message: $out"
out=$("$BIN" --ab "none,$ALT" --disk "$N" --load-size 1T 2>&1); rc=$?
[ $rc -eq 2 ] || fail "load too big: exit $rc"
echo "$out" | grep -q "below twice the load size" || fail "load size message: $out"
[ "$(sched_of "$N")" = none ] && clean || fail "a refused run changed something"

"$BIN" --ab "none,$ALT" --disk "$N" --rounds 2 --dwell 3 --warmup 0.5 --load-size 128M > "$SCRATCH/int.txt" 2>&1 &
P=$!
sleep 5
kill -INT $P
wait $P; rc=$?
[ $rc -eq 1 ] || fail "SIGINT: exit $rc"
grep -q "PARTIAL" "$SCRATCH/int.txt" || fail "no partial report: $(cat "$SCRATCH/int.txt")"
[ "$(sched_of "$N")" = none ] || fail "SIGINT left $(sched_of "$N")"
clean || fail "SIGINT left scratch files"
echo "PASS"
