#!/bin/bash
# Each byte counted once on stacked devices. An ext4 filesystem on a loop
# device (direct I/O) whose backing file lives on another disk: the same
# writes reach the loop device and, through the loop's worker, the disk
# below. A buffered writer of 512 MiB (a copy of dd under its own name),
# then `sync`; over the run, on every disk (no --disk: the tool sees both
# layers):
#  - the writer's TO-DISK (procs[].to_disk_Bps) adds up to 512 MiB within
#    10 %, not twice that;
#  - its per-disk breakdown shows both layers: the loop device and the disk
#    under it each carry the 512 MiB (to_disk_by_disk), and the lower one
#    is labelled as the same bytes (to_disk_stacked_by_disk);
#  - the Prometheus counter of its name holds the 512 MiB once;
#  - the header's "to disks" total and its top writer's part
#    (writers.to_disks_top_process.part_Bps) count the disk below: the
#    part never exceeds the whole and sums to the 512 MiB.
# Then three layers: ext4 on a loop device whose backing file is on the
# first loop device's filesystem; 128 MiB written there are counted once,
# and both layers below are labelled as the same bytes.
# Then a loop device without direct I/O (below its scene's words).
# Device-mapper stacks (dm-linear) are bio-based: they make no requests of
# their own, so their bytes are counted on the disk below only; there is
# nothing to check twice where the kernel has no device-mapper (it says so).
# suite-budget: 40
# suite-alone: its 512 MiB of writeback floods the disk the other tests' loop devices live on
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd jq losetup mkfs.ext4 mount findmnt
setup_scratch

ext4_loop 1024
below=$(lsblk -ndo PKNAME "$(findmnt -no SOURCE -T "$SCRATCH")" 2>/dev/null)
[ -n "$below" ] || below=$(basename "$(findmnt -no SOURCE -T "$SCRATCH")")
W=stackwriter
cp "$(command -v dd)" "$SCRATCH/$W"
# watch OUT MIB FILE [ARGS...]: the tool (with ARGS) runs while $W writes
# MIB MiB to FILE and `sync` puts them on the disks; its JSON lines in OUT.
# BEFORE_WRITE: a command run once the BPF part is on, before $W writes.
watch() {
	local out=$1 mib=$2 file=$3
	shift 3
	"$BIN" --json -d 0.5 --no-probe --procs 100000 "$@" > "$out" 2> "$SCRATCH/err" &
	TOOL=$!
	on_exit "kill $TOOL 2>/dev/null"
	# the BPF part loads in the background: wait until it is on
	for _ in $(seq 100); do tail -n1 "$out" 2>/dev/null | jq -e '.blk.on' > /dev/null 2>&1 && break; sleep 0.1; done
	tail -n1 "$out" | jq -e '.blk.on' > /dev/null || skip "block latency is off: $(tail -n1 "$out" | jq -r .blk.why)"
	[ -z "${BEFORE_WRITE:-}" ] || eval "$BEFORE_WRITE"
	"$SCRATCH/$W" if=/dev/zero of="$file" bs=1M count="$mib" status=none || fail "the writer failed on $file"
	sleep 1
	sync
	sleep 2
	kill -INT "$TOOL"
	wait "$TOOL" || fail "iosched-top exited $?: $(cat "$SCRATCH/err")"
}
P=$SCRATCH/run.prom
watch "$SCRATCH/out.json" 512 "$SCRATCH/mnt/f" --prometheus-textfile "$P"

jq -s --arg w "$W" --arg n "$N" --arg b "$below" '
	[.[] | .interval_s as $i | .procs[] | select(.comm == $w)
	 | {t: ((.to_disk_Bps // 0) * $i), up: (((.to_disk_by_disk // {})[$n] // 0) * $i),
	    down: (((.to_disk_by_disk // {})[$b] // 0) * $i), same: (((.to_disk_stacked_by_disk // {})[$b] // 0) * $i),
	    same_up: (((.to_disk_stacked_by_disk // {})[$n] // 0) * $i)}]
	| {total: (map(.t) | add // 0), up: (map(.up) | add // 0), down: (map(.down) | add // 0),
	   same: (map(.same) | add // 0), same_up: (map(.same_up) | add // 0)}' "$SCRATCH/out.json" > "$SCRATCH/sum.json"
jq -e 'has("total")' "$SCRATCH/sum.json" > /dev/null 2>&1 || fail "the run's JSON could not be summed"
mib() { jq -r --arg k "$1" '.[$k] / 1048576 | floor' "$SCRATCH/sum.json"; }
total=$((512 << 20))
note "$W: TO-DISK $(mib total) MiB; on $N $(mib up) MiB, on $below $(mib down) MiB, of which the same bytes as above: $(mib same) MiB"
within "$(jq .total "$SCRATCH/sum.json")" "$total" 10 || fail "TO-DISK counts $(mib total) MiB for 512 MiB written once"
within "$(jq .up "$SCRATCH/sum.json")" "$total" 10 || fail "the loop device's layer shows $(mib up) MiB, not 512"
within "$(jq .down "$SCRATCH/sum.json")" "$total" 10 || fail "the layer below ($below) shows $(mib down) MiB, not 512"
within "$(jq .same "$SCRATCH/sum.json")" "$total" 10 || fail "$below's bytes are not labelled as the loop device's ($(mib same) MiB)"
jq -e '.same_up == 0' "$SCRATCH/sum.json" > /dev/null || fail "the top layer ($N) is labelled as repeating another"

# The header's "to disks" total counts the disk below (vda), never the
# loop device: its "for WRITER" part counts the same way, so it never
# exceeds the whole (JSON gives the whole in MB/s to 3 decimals: a part
# capped at it may be up to half a thousandth of a MB/s more), and over
# the run it is the writer's 512 MiB.
jq -e -s '[.[] | .writers | select(.to_disks_top_process != null)
	| .to_disks_top_process.part_Bps <= (.to_disks_MBps + 0.001) * 1048576] | all' "$SCRATCH/out.json" > /dev/null ||
	fail "a line's top writer has a part of \"to disks\" larger than the total: $(jq -c -s '[.[] | .writers
	| select(.to_disks_top_process != null) | {t: .to_disks_MBps, p: .to_disks_top_process}] | .[0:3]' "$SCRATCH/out.json")"
part=$(jq -s --arg w "$W" '[.[] | .interval_s as $i | .writers.to_disks_top_process | select(. != null and .comm == $w)
	| .part_Bps * $i] | add // 0' "$SCRATCH/out.json")
note "$W's part of \"to disks\" over the run: $part bytes"
within "$part" "$total" 15 || fail "$W's part of the header's total sums to $part bytes, not 512 MiB"

prom=$(awk -v w="$W" 'index($0, "iosched_process_to_disk_bytes_total{comm=\"" w "\"}") == 1 { print $2 }' "$P")
[ -n "$prom" ] || fail "no Prometheus series for $W: $(grep to_disk_bytes "$P" | head -5)"
note "Prometheus: $prom bytes"
within "$prom" "$total" 10 || fail "the Prometheus counter of $W holds $prom bytes, not 512 MiB once"

# Three layers: loop over a file on the first loop device's filesystem.
f2=$SCRATCH/mnt/inner.img
dd if=/dev/urandom of="$f2" bs=1M count=300 status=none conv=fsync || fail "cannot write $f2"
l2=$(losetup -f --show --direct-io=on "$f2") || fail "losetup failed"
LOOPS="$LOOPS $l2"
n2=$(basename "$l2")
echo none > "/sys/block/$n2/queue/scheduler"
mkfs.ext4 -q -E nodiscard "$l2" || fail "mkfs on $n2 failed"
mount_scratch "$l2" "$SCRATCH/inner"
watch "$SCRATCH/in.json" 128 "$SCRATCH/inner/f"
sum3() { jq -s --arg w "$W" --arg d "$2" "[.[] | .interval_s as \$i | .procs[] | select(.comm == \$w) | ($1) * \$i] | add // 0" "$SCRATCH/in.json"; }
t3=$(sum3 '.to_disk_Bps // 0')
mid=$(sum3 '(.to_disk_by_disk // {})[$d] // 0' "$N")
mid_same=$(sum3 '(.to_disk_stacked_by_disk // {})[$d] // 0' "$N")
low_same=$(sum3 '(.to_disk_stacked_by_disk // {})[$d] // 0' "$below")
note "three layers: TO-DISK $t3 bytes for 128 MiB; on $N $mid (the same bytes: $mid_same), on $below the same bytes: $low_same"
within "$t3" $((128 << 20)) 10 || fail "three layers: TO-DISK counts $t3 bytes for 128 MiB"
within "$mid_same" $((128 << 20)) 10 || fail "the middle layer ($N) is not labelled as the same bytes ($mid_same)"
within "$low_same" $((128 << 20)) 10 || fail "the bottom layer ($below) is not labelled as the same bytes ($low_same)"

# A loop device without direct I/O writes through the page cache of its
# backing file: its worker (a kernel thread) dirties those pages, and the
# disk below gets them later, as writeback no one can be named for. The
# writer is counted at the loop device, then: its TO-DISK is its 192 MiB,
# not 0 (counted at the bottom, it was hidden). A process that once wrote
# the backing file itself (4 KiB beyond the loop device's end, once the
# tool watches) is not charged for that
# writeback (it was, as the file's last dirtier, [exited] or not). On no
# line do the processes' TO-DISK add up to more than "to disks" (by more
# than the block layer's and the disks' readings a moment apart allow),
# and over the run they are that total.
fb=$SCRATCH/buffered.img
fallocate -l 512M "$fb" || fail "cannot allocate $fb"
cp "$(command -v dd)" "$SCRATCH/framed"
# the loop device ends before the file's last MiB, where framed writes
lb=$(losetup -f --show --sizelimit $((511 << 20)) "$fb") || fail "losetup failed"
LOOPS="$LOOPS $lb"
echo none > "/sys/block/$(basename "$lb")/queue/scheduler"
# its inode tables zeroed now, not by ext4lazyinit while the tool counts
# (write-zeroes requests: in the disk's writes, no process's)
mkfs.ext4 -q -E nodiscard,lazy_itable_init=0,lazy_journal_init=0 "$lb" || fail "mkfs on $(basename "$lb") failed"
mount_scratch "$lb" "$SCRATCH/buffered"
BEFORE_WRITE='"$SCRATCH/framed" if=/dev/zero of="$fb" bs=4k seek=$((511 * 256)) count=1 conv=notrunc status=none' \
	watch "$SCRATCH/buf.json" 192 "$SCRATCH/buffered/f"
jq -c '{whole: ((.writers.to_disks_MBps // 0) * 1048576), rows: ([.procs[] | .to_disk_Bps // 0] | add // 0),
	most: ([.procs[] | .to_disk_Bps // 0] | max // 0), i: .interval_s}' "$SCRATCH/buf.json" > "$SCRATCH/buf.lines"
over=$(jq -c 'select(.rows > .whole * 1.15 + 2097152)' "$SCRATCH/buf.lines" | head -n 3)
[ -z "$over" ] || fail "a buffered loop device: processes' TO-DISK add up to more than \"to disks\" on a line: $over"
note "buffered loop device: the line whose rows exceed \"to disks\" most: $(jq -c -s 'max_by(.rows - .whole)' "$SCRATCH/buf.lines")"
sums=$(jq -s '{whole: (map(.whole * .i) | add), rows: (map(.rows * .i) | add)}' "$SCRATCH/buf.lines")
bw() { jq -s --arg w "$1" '[.[] | .interval_s as $i | .procs[] | select(.comm == $w) | (.to_disk_Bps // 0) * $i] | add // 0' "$SCRATCH/buf.json"; }
wb=$(bw "$W")
fr=$(bw framed)
note "buffered loop device: over the run \"to disks\" $(echo "$sums" | jq '.whole / 1048576 | floor') MiB, the processes' TO-DISK $(echo "$sums" | jq '.rows / 1048576 | floor') MiB; $W $wb bytes, the backing file's earlier writer $fr"
within "$(echo "$sums" | jq .rows)" "$(echo "$sums" | jq .whole)" 10 ||
	fail "a buffered loop device: the processes' TO-DISK over the run is not the total: $sums"
within "$wb" $((192 << 20)) 10 || fail "a buffered loop device hides its writer: $W's TO-DISK is $wb bytes for 192 MiB"
awk -v b="$fr" 'BEGIN { exit !(b < 1048576) }' || fail "the backing file's earlier writer is charged $fr bytes of the loop device's writeback"

if dmsetup version > /dev/null 2>&1; then
	# dm-linear over a second loop device, ext4 on it: requests only on
	# the loop device below, each byte there once.
	attach_loop 256
	dm=iosched-test-$$
	dmsetup create "$dm" --table "0 $(blockdev --getsz "$LOOP") linear $LOOP 0" || fail "dmsetup create failed"
	on_exit "dmsetup remove $dm"
	mkfs.ext4 -q -E nodiscard "/dev/mapper/$dm" || fail "mkfs on the dm device failed"
	mount_scratch "/dev/mapper/$dm" "$SCRATCH/dm"
	watch "$SCRATCH/dm.json" 128 "$SCRATCH/dm/f"
	t=$(jq -s --arg w "$W" '[.[] | .interval_s as $i | .procs[] | select(.comm == $w) | (.to_disk_Bps // 0) * $i] | add // 0' "$SCRATCH/dm.json")
	note "device-mapper: $W's TO-DISK $t bytes for 128 MiB"
	within "$t" $((128 << 20)) 10 || fail "on dm-linear over a loop device, TO-DISK counts $t bytes for 128 MiB"
else
	note "device-mapper: not available in this kernel (dmsetup version failed); the dm stack was not tried"
fi
echo "PASS"
