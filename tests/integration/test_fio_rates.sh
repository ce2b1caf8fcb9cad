#!/bin/bash
# A rate-limited fio writer (direct writes, --rate=100m) on a loop device
# this test attaches. iosched-top's batch JSON and `iostat -x`, run over the
# same seconds, must both see fio's request and byte rates: ours within 5 %
# of fio's limit and within 5 % of iostat's figures.
#
# Why 512 KiB writes and not 1 MiB: a loop queue takes at most 128 segments
# per request, so a 1 MiB write whose buffer is not physically contiguous is
# split in two at the loop device, and w/s then depends on how fio's buffer
# happened to land in memory (seen here: 100 w/s in one run, 150 in the
# next, iostat agreeing both times). 512 KiB is 128 pages: never split.
# suite-budget: 20
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd fio iostat jq losetup
setup_scratch

attach_loop 1024; L=$LOOP
N=$(basename "$L")
note "writer on $L"
fio --name=w --filename="$L" --rw=write --bs=512k --direct=1 --ioengine=libaio --iodepth=8 \
	--rate=100m --time_based --runtime=11 --output="$SCRATCH/fio.out" &
FIO=$!
on_exit "kill $FIO"
sleep 2 # let the rate limiter settle

"$BIN" -b --json -d 1 -n 6 --disk "$N" --no-probe > "$SCRATCH/ours.json" &
OURS=$!
iostat -x -d -y -o JSON "$N" 1 6 > "$SCRATCH/iostat.json" &
IOSTAT=$!
wait $OURS || fail "iosched-top exited $?"
wait $IOSTAT || fail "iostat exited $?"
wait $FIO || fail "fio exited $?"

[ "$(wc -l < "$SCRATCH/ours.json")" -eq 6 ] || fail "expected 6 JSON lines"
jq -e . "$SCRATCH/ours.json" >/dev/null || fail "output is not JSON lines"
# The row describes the device we made, with the schedulers its kernel offers.
offered=$(tr -d '[]' < "/sys/block/$N/queue/scheduler" | jq -R -c 'split(" ") | map(select(. != ""))')
jq -e --arg n "$N" --argjson s "$offered" '.disks[0] | .name == $n and .kind == "loop" and .size_bytes == 1073741824
	and .scheduler == "none" and .schedulers == $s' \
	<(tail -n1 "$SCRATCH/ours.json") >/dev/null || fail "disk row wrong: $(tail -n1 "$SCRATCH/ours.json")"

# Means over the last 5 intervals (the first may straddle the start).
ours_w=$(tail -n 5 "$SCRATCH/ours.json" | jq -s 'map(.disks[0].w_s) | add / length')
ours_kb=$(tail -n 5 "$SCRATCH/ours.json" | jq -s 'map(.disks[0].wkB_s) | add / length')
io_w=$(jq '[.sysstat.hosts[0].statistics[-5:][] | .disk[0]["w/s"]] | add / length' "$SCRATCH/iostat.json")
io_kb=$(jq '[.sysstat.hosts[0].statistics[-5:][] | .disk[0]["wkB/s"]] | add / length' "$SCRATCH/iostat.json")
note "w/s:   iosched-top $ours_w  iostat $io_w  fio limit 200"
note "wkB/s: iosched-top $ours_kb  iostat $io_kb  fio limit 102400"

within "$ours_w" 200 5 || fail "w_s $ours_w not within 5% of fio's 200/s"
within "$ours_kb" 102400 5 || fail "wkB_s $ours_kb not within 5% of fio's 102400"
within "$ours_w" "$io_w" 5 || fail "w_s $ours_w not within 5% of iostat's $io_w"
within "$ours_kb" "$io_kb" 5 || fail "wkB_s $ours_kb not within 5% of iostat's $io_kb"
# Sanity of the other figures. Reads: none of ours, but another tool may
# be probing this device (a second iosched-top probes every disk at 20/s),
# so r/s is compared with iostat's over the same seconds, not with 0.
# %util is not required to be above 0: a loop device's io_ticks move in
# whole jiffies, and iostat itself showed 1.2 % to 11.6 % from one second
# to the next under this load.
ours_r=$(tail -n 5 "$SCRATCH/ours.json" | jq -s 'map(.disks[0].r_s) | add / length')
io_r=$(jq '[.sysstat.hosts[0].statistics[-5:][] | .disk[0]["r/s"]] | add / length' "$SCRATCH/iostat.json")
note "r/s:   iosched-top $ours_r  iostat $io_r  (fio only writes)"
awk -v a="$ours_r" -v b="$io_r" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 2 || d <= b * 0.1) }' ||
	fail "r_s $ours_r against iostat's $io_r"
jq -e '.disks[0] | .w_await_ms > 0 and .util_pct >= 0 and .util_pct <= 100' \
	<(tail -n1 "$SCRATCH/ours.json") >/dev/null || fail "w_await/util implausible: $(tail -n1 "$SCRATCH/ours.json" | jq -c .disks[0])"
echo "PASS"
