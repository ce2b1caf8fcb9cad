#!/bin/bash
# Who block-layer writes are charged to (BPF), on an ext4 filesystem on a
# loop device this test makes:
#  - an O_DIRECT dd is charged to dd, on that disk, and on the disk under
#    the loop device's file: its bytes as the same bytes (the loop device
#    hands its pages down: charged there to dd too, marked as repeating
#    them), no more of them than it wrote through the loop device, and in
#    all no more than that disk wrote meanwhile (ext4 under the loop
#    device zeroes the rest of each unwritten extent of the preallocated
#    file, in the same requests: dd's, but not the same bytes);
#  - a buffered dd only dirties pages (it must be seen writing in
#    /proc/PID/io); after `sync` the flusher writes them, and those block
#    writes are charged to dd, the process that dirtied them (its row, or
#    its [exited] row once it has ended: at least 90 % of them), not to the flusher's writeback
#    row, which keeps only the filesystem's journal and metadata.
# suite-budget: 20
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd jq losetup mkfs.ext4 dd
setup_scratch

attach_loop 256; L=$LOOP
N=$(basename "$L")
mkfs.ext4 -q -F -E nodiscard "$L" || fail "mkfs.ext4 failed"
mount_scratch "$L" "$SCRATCH/mnt"
fallocate -l 80M "$SCRATCH/mnt/direct" || fail "fallocate failed"

# Runs until the writers are done and synced (then SIGTERM): a fixed count
# of intervals ran out before the buffered dd started when the O_DIRECT dd
# was slow (seen with another writer on the machine: "never seen writing").
"$BIN" -b --json -d 0.5 -n 1000 --disk "$N" --no-probe --procs 1000 > "$SCRATCH/ours.json" 2> "$SCRATCH/ours.err" &
OURS=$!
on_exit "kill $OURS"
sleep 2 # past the BPF program's loading (from the end of the first tick)

below=$(lsblk -ndo PKNAME "$(findmnt -no SOURCE -T "$SCRATCH")" 2>/dev/null)
[ -n "$below" ] || below=$(basename "$(findmnt -no SOURCE -T "$SCRATCH")")
sectors() { awk -v d="$1" '$3 == d { print $10 }' /proc/diskstats; }
s0=$(sectors "$below")
dd if=/dev/zero of="$SCRATCH/mnt/direct" bs=4k count=20000 oflag=direct conv=notrunc status=none &
DIRECT=$!
wait $DIRECT || fail "O_DIRECT dd failed"
sleep 1 # its last requests in a sample
s1=$(sectors "$below")
# A buffered writer kept alive for ~3 s by a trickling pipe; its dirty
# pages stay in memory (far below the background threshold) until sync.
(for _ in $(seq 30); do head -c 1M /dev/zero; sleep 0.1; done) |
	dd of="$SCRATCH/mnt/buffered" bs=1M iflag=fullblock status=none &
BUFFERED=$!
wait $BUFFERED || fail "buffered dd failed"
sync
sleep 1.5 # two more intervals, so the last writeback is in a sample
kill -TERM $OURS
wait $OURS || fail "iosched-top exited $?: $(cat "$SCRATCH/ours.err")"

jq -e '.blk.on' <(tail -n1 "$SCRATCH/ours.json") >/dev/null || fail "block latency off: $(tail -n1 "$SCRATCH/ours.json" | jq -c .blk)"
# The O_DIRECT writer: its own block writes on N; on the disk under N's
# file the same bytes again and what the filesystem there added; no other
# disk's.
direct_n=$(jq -s --argjson p "$DIRECT" --arg n "$N" '[.[].procs[] | select(.pid == $p) | .blk[]?
	| select(.op == "write" and .disk == $n) | .n] | add // 0' "$SCRATCH/ours.json")
elsewhere=$(jq -s --argjson p "$DIRECT" --arg n "$N" --arg b "$below" '[.[].procs[] | select(.pid == $p) | .blk[]?
	| select(.op == "write" and .disk != $n and .disk != $b)] | length' "$SCRATCH/ours.json")
same=$(jq -s --argjson p "$DIRECT" --arg b "$below" --arg n "$N" --argjson disk "$(( (s1 - s0) * 512 ))" '[.[] | .interval_s as $i | .procs[] | select(.pid == $p)
	| {all: (((.to_disk_by_disk // {})[$b] // 0) * $i), same: (((.to_disk_stacked_by_disk // {})[$b] // 0) * $i),
	   loop: (((.to_disk_by_disk // {})[$n] // 0) * $i)}]
	| {loop: (map(.loop) | add // 0), all: (map(.all) | add // 0), same: (map(.same) | add // 0), disk_wrote: $disk}' "$SCRATCH/ours.json")
note "O_DIRECT dd on $below (under $N): $same"
jq -e '.all == 0 or (.same >= 0.95 * .loop and .same <= 1.01 * .loop + 65536)' <<< "$same" > /dev/null ||
	fail "O_DIRECT dd's bytes on $below marked as the same as through $N are not its writes through $N: $same"
jq -e '.all <= .disk_wrote * 1.01' <<< "$same" > /dev/null ||
	fail "O_DIRECT dd charged on $below with more than $below wrote meanwhile: $same"
# (Reads elsewhere are its own: loading dd from the root disk is charged to dd.)
note "O_DIRECT dd: $direct_n block writes on $N charged to it, $elsewhere write entries on other disks"
[ "$direct_n" -gt 1000 ] || fail "O_DIRECT dd charged with only $direct_n block writes on $N"
[ "$elsewhere" -eq 0 ] || fail "O_DIRECT dd charged with writes on another disk: $(jq -sc --argjson p "$DIRECT" --arg n "$N" "[.[].procs[] | select(.pid == \$p) | .blk[]? | select(.op == \"write\" and .disk != \$n)]" "$SCRATCH/ours.json")"
# The buffered writer: seen dirtying; its 30 MiB reach the disk after
# sync, charged to it (live or [exited]), not to the flusher.
seen=$(jq -s --argjson p "$BUFFERED" '[.[].procs[] | select(.pid == $p and .write_Bps > 0)] | length' "$SCRATCH/ours.json")
charged=$(jq -s --argjson p "$BUFFERED" --arg n "$N" '[.[].procs[] | select(.pid == $p) | .blk[]?
	| select(.op == "write" and .disk == $n) | .bytes] | add // 0' "$SCRATCH/ours.json")
wb=$(jq -s --arg n "$N" '[.[].procs[] | select(.kind == "writeback") | .blk[]?
	| select(.op == "write" and .disk == $n) | .bytes] | add // 0' "$SCRATCH/ours.json")
who=$(jq -rs --arg n "$N" '[.[].procs[] | select(.kind == "writeback" and any(.blk[]?; .disk == $n)) | .comm] | unique | join(", ")' "$SCRATCH/ours.json")
note "buffered dd: dirtying in $seen intervals, $charged bytes of block writes on $N charged to it; writeback rows ($who) $wb bytes"
[ "$seen" -gt 0 ] || fail "the buffered dd was never seen writing (the test did not test anything)"
# (at least 90 %: a reading that races the exit of dd can miss a last few requests)
[ "$charged" -ge $((27 * 1048576)) ] || jq -sc --arg n "$N" '[.[].procs[] | select(any(.blk[]?; .disk == $n and .op == "write"))
	| {pid, comm, kind, exited, blk}]' "$SCRATCH/ours.json" >&2
[ "$charged" -ge $((27 * 1048576)) ] || fail "the buffered dd was charged with only $charged bytes of its 30 MiB"
[ "$wb" -lt $((30 * 1048576)) ] || fail "writeback rows still carry $wb bytes: dd's pages were charged to the flusher"
echo "PASS"
