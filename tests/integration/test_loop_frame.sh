#!/bin/bash
# A direct write through a filesystem on a loop device that leads with a
# page of another user's file while that page is being written back is
# still the writer's own below the loop device, where the loop device's
# worker, a kernel thread, writes it (the writeback rule lets kernel
# threads through: the worker passes pages written back above it down as
# direct I/O). The writer never opens the loop device; it only writes a
# file on a filesystem an admin made on one.
#  - a slow disk (5 ms a request: a page stays under writeback that long)
#    holds ext4 with uid 1's "victim-db" file, which has 4 KiB dirtied at
#    each MiB, and the backing file of a loop device with direct I/O, which
#    holds ext4 with nobody's directory;
#  - nobody's "attacker-lf", for each of the victim's pages: starts its
#    writeback (read-only descriptor), then at once writes 128 KiB with
#    O_DIRECT to its own file on the loop device's filesystem, the first
#    4 KiB from a read-only mapping of that page;
#  - on the slow disk the attacker's TO-DISK is its 4 MiB (at least 90 %);
#    the victim's at most its own 128 KiB and 512 KiB more.
# suite-budget: 60
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/frame.sh"
need_root
need_cmd jq losetup mkfs.ext4 python3 setpriv
need_slowfs
setup_scratch

slow_loop 0.005 192
N=$(basename "$SLOW") MNT=$SCRATCH/mnt
mkfs.ext4 -q -b 4096 -E nodiscard "$SLOW" || fail "mkfs failed"
mount_scratch "$SLOW" "$MNT"
mkdir -p "$MNT/v"; chown 1:1 "$MNT/v"; chmod 755 "$SCRATCH" "$MNT" "$MNT/v"
fallocate -l 64M "$MNT/upper.img" || fail "cannot allocate the loop device's file"
UP=$(losetup -f --show --direct-io=on "$MNT/upper.img") || fail "losetup failed"
on_exit "losetup -d $UP" # (before the filesystem its file is on is unmounted)
loop_node_default "$UP"
echo none > "/sys/block/$(basename "$UP")/queue/scheduler" || fail "cannot set the scheduler of $UP to none"
[ "$(cat "/sys/block/$(basename "$UP")/loop/dio")" = 1 ] || skip "no direct I/O for a loop device over ext4 here"
mkfs.ext4 -q -E nodiscard "$UP" || fail "mkfs failed"
mount_scratch "$UP" "$SCRATCH/up"
mkdir -p "$SCRATCH/up/a"; chown 65534:65534 "$SCRATCH/up/a"; chmod 755 "$SCRATCH/up" "$SCRATCH/up/a"
sync

json_with_blk "$SCRATCH/out.json" -d 0.5 --disk "$N" --no-probe --procs 100000

frame_victim "$MNT/v/F"
frame_attacker "$MNT/v/F" "$SCRATCH/up/a/out" attacker-lf
frame_verdict attacker-lf "through a loop device"
echo PASS
