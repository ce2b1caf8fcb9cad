#!/bin/bash
# Who is waiting: a fio QD1 4k psync random reader on a slow disk (a loop
# device on tests/lib/slowfs.py, 2 ms per request, so the wait is mostly
# asleep), with delay accounting turned on by --enable-delayacct: its
# avg_wait_us is within 35 % of fio's own mean completion latency and its
# io_wait_pct is high; at exit kernel.task_delayacct is off again.
# suite-alone: it turns kernel.task_delayacct on (a setting of the whole machine) and checks it is put back
# suite-budget: 15
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd fio jq losetup
need_slowfs
[ -r /proc/sys/kernel/task_delayacct ] || skip "kernel without delay accounting"
setup_scratch

was=$(cat /proc/sys/kernel/task_delayacct)
on_exit "echo $was > /proc/sys/kernel/task_delayacct"
slow_loop 0.002 256 random; L=$SLOW

"$BIN" $PROCS_ARGS --json -d 1 -n 8 --no-probe --disk "$(basename "$L")" --enable-delayacct > "$SCRATCH/out.json" 2> "$SCRATCH/err" &
P=$!
sleep 1 # delay accounting is on now: fio starts after it, so its waits count
fio --name=r --filename="$L" --rw=randread --bs=4k --iodepth=1 --ioengine=psync --direct=1 --time_based --runtime=5 \
	--output-format=json --output="$SCRATCH/fio.json" &
FIO=$!
# fio's processes (its job process is a child), by pid: another fio on the
# machine must not be taken for this one.
for _ in $(seq 300); do [ -n "$(pgrep -P $FIO)" ] && break; sleep 0.1; done
ours=$(echo $FIO $(pgrep -P $FIO) | tr ' ' ,)
wait $FIO || fail "fio failed"
wait $P || fail "iosched-top exited $?"
[ "$(cat /proc/sys/kernel/task_delayacct)" = "$was" ] || fail "task_delayacct left at $(cat /proc/sys/kernel/task_delayacct)"
[ "$was" = 1 ] || grep -q "task_delayacct set back to 0" "$SCRATCH/err" || fail "no word on restoring task_delayacct: $(cat "$SCRATCH/err")"
clat=$(jq '.jobs[0].read.clat_ns.mean / 1000' "$SCRATCH/fio.json")
# fio's job process (the reader: its parent reads little), in lines where it
# waited; lines from before it started or after it ended have no such row.
jq -c --argjson ours "[$ours]" '[.procs[] | select((.pid as $p | $ours | index($p)) and .wait == "ok" and .read_calls_per_s > 100)]
	| max_by(.read_calls_per_s) // empty' "$SCRATCH/out.json" > "$SCRATCH/fio_rows"
[ -s "$SCRATCH/fio_rows" ] || fail "no fio row with measured waits: $(jq -c '[.procs[] | select(.comm == "fio")]' "$SCRATCH/out.json" | head -3)"
avg=$(jq -s 'map(.avg_wait_us) | add / length' "$SCRATCH/fio_rows")
pct=$(jq -s 'map(.io_wait_pct) | min' "$SCRATCH/fio_rows")
note "fio clat mean ${clat} us; iosched-top avg_wait_us ${avg}, io_wait_pct >= ${pct}"
within "$avg" "$clat" 35 || fail "avg_wait_us $avg not within 35% of fio's $clat"
awk -v p="$pct" 'BEGIN { exit !(p > 70) }' || fail "io_wait_pct $pct is not high"
tasks_from_is "$SCRATCH/out.json"
echo "PASS"
