#!/bin/bash
# TO-DISK under 200 short-lived dirtiers: 200 dd processes, one after the
# other, each write 256 KiB into a file of its own on ext4 on a loop device
# and end before their pages are written; then `sync` writes them all.
# (The BPF part keeps the last dirtier of 16384 files, and 4096 names.)
# Summed over the run on that device (JSON procs[].to_disk_by_disk):
#  - the dd rows ([exited] dd) carry at least 90 % of the 50 MiB and no more
#    than 100 % (nothing charged twice), and all rows no more than the disk
#    wrote (diskstats);
#  - with a test build whose map of dirtied files keeps 64 (make
#    test-builds), the files it forgot are not lost silently: the dd rows
#    plus the device's unattributed bytes (disks[].blk_unattributed_bytes,
#    their growth over the run) cover at least 90 %, the dd rows
#    still no more than 100 %, and the unattributed bytes are at least a
#    quarter of the data (136 of the 200 files cannot be remembered).
# suite-budget: 40
# suite-alone: its 200 writers and two syncs flood the disk the other tests' loop devices live on (test_probe_file starved beside it)
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd jq losetup mkfs.ext4 mount dd sync
setup_scratch

ext4_loop 512
data=$((200 * 262144))

# run BIN TAG: the 200 writers under BIN; sums into $SCRATCH/TAG.json
run() {
	local bin=$1 tag=$2 out=$SCRATCH/$2.out
	mkdir "$MNT/$tag"
	"$bin" --json -d 0.5 --disk "$N" --no-probe --procs 100000 > "$out" 2> "$SCRATCH/$tag.err" &
	TOOL=$!
	on_exit "kill $TOOL 2>/dev/null"
	for _ in $(seq 100); do tail -n1 "$out" 2>/dev/null | jq -e '.blk.on' > /dev/null 2>&1 && break; sleep 0.1; done
	tail -n1 "$out" | jq -e '.blk.on' > /dev/null || skip "block latency is off: $(tail -n1 "$out" | jq -r .blk.why)"
	for i in $(seq 200); do
		dd if=/dev/zero of="$MNT/$tag/f$i" bs=64k count=4 status=none || fail "dd $i failed"
	done
	sync
	sleep 1.5
	kill -INT "$TOOL"
	wait "$TOOL" || fail "$tag: the tool exited $?: $(cat "$SCRATCH/$tag.err")"
	jq -s --arg n "$N" '
		[.[] | select(.blk.on)] as $on
		| [$on[] | .interval_s as $i | .procs[] | {comm, b: ((((.to_disk_by_disk // {})[$n]) // 0) * $i)}] as $rows
		| {dd: ([$rows[] | select(.comm == "dd") | .b] | add // 0),
		   all: ([$rows[] | .b] | add // 0),
		   disk: ([$on[] | .interval_s as $i | .disks[] | select(.name == $n) | (.wkB_s // 0) * 1024 * $i] | add // 0),
		   unattributed: ([$on[] | .disks[] | select(.name == $n) | .blk_unattributed_bytes] | (last - first))}' \
		"$out" > "$SCRATCH/$tag.json"
	jq -e 'has("dd")' "$SCRATCH/$tag.json" > /dev/null || fail "$tag: the run's JSON could not be summed"
	note "$tag: $(jq -c '{dd, all, disk, unattributed}' "$SCRATCH/$tag.json") (data $data)"
}

run "$BIN" full
S=$SCRATCH/full.json
jq -e --argjson t "$data" '.dd >= 0.9 * $t' "$S" > /dev/null || fail "the dd rows carry less than 90 % of the data"
jq -e --argjson t "$data" '.dd <= $t * 1.001' "$S" > /dev/null || fail "the dd rows carry more than the data: counted twice"
jq -e '.all <= 1.02 * .disk + 65536' "$S" > /dev/null || fail "the rows carry more than the disk wrote: counted twice"

[ -x "$TOP/build/smallmaps/iosched-top" ] || skip "no test build with a small map of dirtied files (BPF not built)"
run "$TOP/build/smallmaps/iosched-top" small
S=$SCRATCH/small.json
jq -e --argjson t "$data" '.dd <= $t * 1.001' "$S" > /dev/null || fail "small map: the dd rows carry more than the data: counted twice"
jq -e --argjson t "$data" '.dd + .unattributed >= 0.9 * $t' "$S" > /dev/null ||
	fail "small map: what the dd rows carry and what is counted as unattributed cover less than 90 % of the data"
jq -e --argjson t "$data" '.unattributed >= 0.25 * $t' "$S" > /dev/null || fail "small map: the overflow is not counted"
echo "PASS"
