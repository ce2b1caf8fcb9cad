#!/bin/bash
# Block-layer latency per process (BPF) against fio's own figures: a fio
# psync QD1 4 KiB random reader on a loop device this test attaches. Over
# the same intervals, the JSON "blk" entry for fio's pid on that disk must
#  - count fio's reads within 2 %: fio's read syscalls in the same interval
#    come from the same JSON row (read_calls_per_s, from /proc/PID/io syscr), so
#    both figures cover exactly the same seconds;
#  - put p50, in each interval, between half of fio's clat p50 over that
#    interval and 10 % above it: the block layer leaves out the system call and the wake-up,
#    so it reads lower, never higher (but for a bucket's width and the
#    interval's edges). How much lower is the CPU's doing: 0.78-0.80 of
#    fio's on an idle machine, 0.63 in a slow spell of a quiet run (11k
#    reads in 5 s instead of 34k: 267 us against 422 us, f85175c), where
#    a fixed 35 % failed.
#    fio logs each read's clat with its wall-clock time (log_unix_epoch), so
#    its p50 is taken over exactly the JSON interval compared: a whole-run
#    p50 once read 142 us against 206 us in five seconds when the machine
#    was slower than in the rest of the run (CI, stop 22).
# IOSCHED_BIN may name another build and BLK_SCHED a scheduler: the test
# build without block_io_start runs this same test on mq-deadline, where
# requests are inserted into a scheduler queue before they are issued
# (tests/integration/test_blk_noiostart.sh).
# suite-budget: 20
# suite-alone: it compares fio's read count with the block layer's, two readings a few ms apart: beside another test (two busy cores) a reading took long enough for fio's reads in between to pass the 2 % bound
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd fio jq losetup
setup_scratch

owner=${BLK_OWNER:-block_io_start}
# Filled: reads of holes never reach a disk, and the block-layer time of
# a loop request would then be a few microseconds of the kworker.
attach_loop 256 fill; L=$LOOP
N=$(basename "$L")
[ -n "${BLK_SCHED:-}" ] && { echo "$BLK_SCHED" > "/sys/block/$N/queue/scheduler" || fail "cannot set $BLK_SCHED"; }
# --thread: the job runs in fio's own process, so its pid is $!.
# --disk_util=0: no reads of sysfs by fio's helper, only the job's preads.
fio --name=r --filename="$L" --rw=randread --bs=4k --direct=1 --ioengine=psync --iodepth=1 \
	--thread --disk_util=0 --time_based --runtime=11 --output-format=json --output="$SCRATCH/fio.json" \
	--write_lat_log="$SCRATCH/fio" --log_avg_msec=0 --log_unix_epoch=1 &
FIO=$!
on_exit "kill $FIO"
sleep 1.5

"$BIN" -b --json -d 1 -n 7 --disk "$N" --no-probe --procs 200 > "$SCRATCH/ours.json" 2> "$SCRATCH/ours.err" ||
	fail "iosched-top exited $?: $(cat "$SCRATCH/ours.err")"
wait $FIO || fail "fio exited $?"

jq -e --arg o "$owner" '.blk.on and .blk.owner == $o' <(tail -n1 "$SCRATCH/ours.json") >/dev/null ||
	fail "block latency not on with owner $owner: $(tail -n1 "$SCRATCH/ours.json" | jq -c .blk)"

# Per interval (the first two are left out: the BPF program loads during
# the second, and the third is its first whole interval): its end and
# length, fio's read syscalls and the block layer's read count and p50 for
# fio on N.
tail -n 5 "$SCRATCH/ours.json" | jq -r --argjson pid "$FIO" --arg n "$N" '
	(.procs[] | select(.pid == $pid)) as $p
	| ($p.blk | map(select(.disk == $n and .op == "read"))[0]) as $b
	| "\(.ts) \(.interval_s) \($p.read_calls_per_s * .interval_s) \($b.n // 0) \($b.p50_us // 0)"' > "$SCRATCH/rows"
[ "$(wc -l < "$SCRATCH/rows")" -eq 5 ] || fail "fio (pid $FIO) missing from some intervals: $(cat "$SCRATCH/rows")"
read -r sys blk < <(awk '{ s += $3; b += $4 } END { printf "%.0f %.0f\n", s, b }' "$SCRATCH/rows")
note "reads over 5 s: fio syscalls $sys  block layer $blk"
[ "$sys" -gt 1000 ] || fail "fio did too few reads ($sys) for the comparison"
within "$blk" "$sys" 2 || fail "block-layer count $blk not within 2 % of fio's $sys reads"
# p50 interval by interval, against fio's clat p50 over the same interval:
# fio's clat log lines are "time_ms, clat_ns, dir, bs, prio". Not a mean
# of the intervals' p50s against one p50 of all reads: beside a writer
# that floods the same backing disk, one interval of a few slow reads
# (seen: 3.4 ms against 116 us) outweighed four of thousands of fast ones.
# An interval of under 100 reads has too few for its p50 to be compared.
checked=0
while read -r ts len _ n p50; do
	[ "${n%.*}" -ge 100 ] || continue
	fio_p50=$(awk -F', *' -v a="$(awk -v t="$ts" -v l="$len" 'BEGIN { printf "%.0f", (t - l) * 1000 }')" \
		-v b="$(awk -v t="$ts" 'BEGIN { printf "%.0f", t * 1000 }')" '$1 > a && $1 <= b && $3 == 0 { print $2 }' \
		"$SCRATCH"/fio_clat.*.log | sort -n | awk '{ v[NR] = $1 } END { if (NR) printf "%.1f\n", v[int((NR + 1) / 2)] / 1000; else print 0 }')
	[ "$fio_p50" != 0 ] || fail "no fio clat log entries in the interval ending at $ts: $(ls "$SCRATCH")"
	note "interval ending $ts: block layer p50 $p50 us ($n reads), fio clat p50 $fio_p50 us"
	awk -v b="$p50" -v f="$fio_p50" 'BEGIN { exit !(b >= 0.5 * f && b <= 1.1 * f) }' ||
		fail "block-layer p50 $p50 us not within 0.5-1.1 of fio's clat p50 $fio_p50 us in the interval ending at $ts"
	checked=$((checked + 1))
done < "$SCRATCH/rows"
[ $checked -ge 3 ] || fail "only $checked of 5 intervals had 100 reads to compare: $(cat "$SCRATCH/rows")"
# Nothing of fio's was charged as a write, and the disk's in-flight list
# is a list (fio has at most one request out at a time).
jq -e --argjson pid "$FIO" '(.procs[] | select(.pid == $pid) | .blk | map(select(.op == "write")) | length) == 0' \
	<(tail -n1 "$SCRATCH/ours.json") >/dev/null || fail "fio charged with writes"
jq -e '.disks[0].blk_waiting | type == "array" and length <= 3 and all(.inflight <= 1)' \
	<(tail -n1 "$SCRATCH/ours.json") >/dev/null || fail "blk_waiting wrong: $(tail -n1 "$SCRATCH/ours.json" | jq -c '.disks[0].blk_waiting')"
echo "PASS"
