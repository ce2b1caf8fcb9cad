#!/bin/bash
# TO-DISK: the writeback of pages is charged to the process that dirtied
# them, not to the flusher that writes them. On an ext4 filesystem on a
# loop device this test makes: a buffered dd of 512 MiB (it ends with its
# data still in the page cache), then `sync` from another process. Summed
# over the run, on that loop device (JSON procs[].to_disk_by_disk), dd's
# rows (live, or [exited] once it has ended) carry at least 80 % of the
# 512 MiB, and kworker rows at most 20 %; the header's top process
# (writers.to_disks_top_process) names dd while its pages are written.
# suite-budget: 30
# suite-alone: its 512 MiB of writeback floods the disk the other tests' loop devices live on
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd jq losetup mkfs.ext4 mount
setup_scratch

ext4_loop 1024
"$BIN" --json -d 0.5 --disk "$N" --no-probe --procs 100000 > "$SCRATCH/out.json" 2> "$SCRATCH/err" &
TOOL=$!
on_exit "kill $TOOL 2>/dev/null"
# the BPF part loads in the background: wait until it is on
for _ in $(seq 100); do tail -n1 "$SCRATCH/out.json" 2>/dev/null | jq -e '.blk.on' > /dev/null 2>&1 && break; sleep 0.1; done
tail -n1 "$SCRATCH/out.json" | jq -e '.blk.on' > /dev/null || skip "block latency is off: $(tail -n1 "$SCRATCH/out.json" | jq -r .blk.why)"
dd if=/dev/zero of="$SCRATCH/mnt/f" bs=1M count=512 status=none || fail "dd failed"
sleep 1
sync
sleep 2
kill -INT "$TOOL"
wait "$TOOL"
jq -s --arg n "$N" '
	[.[] | .interval_s as $i | .procs[] | {comm, exited: (.exited // false), b: ((((.to_disk_by_disk // {})[$n]) // 0) * $i)}]
	| {dd: ([.[] | select(.comm == "dd") | .b] | add // 0),
	   kworker: ([.[] | select(.comm | startswith("kworker")) | .b] | add // 0),
	   all: ([.[] | .b] | add // 0),
	   exited_dd: ([.[] | select(.comm == "dd" and .exited) | .b] | add // 0)}' "$SCRATCH/out.json" > "$SCRATCH/sum.json"
jq -e 'has("dd")' "$SCRATCH/sum.json" > /dev/null 2>&1 || fail "the run's JSON could not be summed: $(head -c 300 "$SCRATCH/sum.json")"
total=$((512 << 20))
note "on $N: $(jq -c '{dd_MiB: (.dd / 1048576 | floor), exited_dd_MiB: (.exited_dd / 1048576 | floor), kworker_MiB: (.kworker / 1048576 | floor), all_MiB: (.all / 1048576 | floor)}' "$SCRATCH/sum.json")"
jq -e --argjson t "$total" '.dd >= 0.8 * $t' "$SCRATCH/sum.json" > /dev/null || fail "dd's rows carry less than 80 % of its 512 MiB"
jq -e --argjson t "$total" '.kworker <= 0.2 * $t' "$SCRATCH/sum.json" > /dev/null || fail "kworker rows carry more than 20 %"
jq -e '.exited_dd > 0' "$SCRATCH/sum.json" > /dev/null || fail "no [exited] dd row carried its writeback after it ended"
jq -se 'map(.writers.to_disks_top_process.comm) | index("dd") != null' "$SCRATCH/out.json" > /dev/null ||
	fail "the header never named dd as the process the disk wrote for"
echo "PASS"
