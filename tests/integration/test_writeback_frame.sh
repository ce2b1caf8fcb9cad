#!/bin/bash
# A direct write that leads with a page of another user's file while that
# page is being written back is still the writer's own: anyone who may
# read a file can start its writeback (sync_file_range on a read-only
# descriptor), so a page under writeback says nothing about whose request
# it is; only the flusher's and a thread inside do_writepages's are the
# file's writeback.
#  - on ext4 on a slow loop device (5 ms a request: a page stays under
#    writeback that long), uid 1's "victim-db" dirties 4 KiB at each MiB of
#    its own file (0644) and sleeps;
#  - nobody's "attacker-sf", for each of those pages: starts its writeback
#    (read-only descriptor), then at once writes 128 KiB with O_DIRECT to
#    its own file, the first 4 KiB from a read-only mapping of that page;
#  - the attacker's TO-DISK is its 4 MiB (at least 90 %); the victim's at
#    most its own 128 KiB and 512 KiB more (it had all 4 MiB before).
# suite-budget: 45
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/frame.sh"
need_root
need_cmd jq losetup mkfs.ext4 python3 setpriv
need_slowfs
setup_scratch

slow_loop 0.005 64
N=$(basename "$SLOW") MNT=$SCRATCH/mnt
mkfs.ext4 -q -E nodiscard "$SLOW" || fail "mkfs failed"
mount_scratch "$SLOW" "$MNT"
mkdir -p "$MNT/v" "$MNT/a"
chown 1:1 "$MNT/v"; chown 65534:65534 "$MNT/a"; chmod 755 "$SCRATCH" "$MNT" "$MNT/v" "$MNT/a"
sync

json_with_blk "$SCRATCH/out.json" -d 0.5 --disk "$N" --no-probe --procs 100000

frame_victim "$MNT/v/F"
frame_attacker "$MNT/v/F" "$MNT/a/out" attacker-sf
frame_verdict attacker-sf "to its own file"
echo PASS
