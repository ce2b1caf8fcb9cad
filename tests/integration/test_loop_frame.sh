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

setpriv --reuid=1 --regid=1 --clear-groups -- /usr/bin/python3 -c '
import os, sys, time
open("/proc/self/comm", "w").write("victim-db")
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT, 0o644)
for i in range(32):
    os.pwrite(fd, b"v" * 4096, i << 20)
os.ftruncate(fd, 32 << 20)
os.close(fd)
open(sys.argv[1] + ".done", "w").close()
time.sleep(120)' "$MNT/v/F" &
VICTIM=$!
on_exit "kill $VICTIM 2>/dev/null"
for _ in $(seq 50); do [ -e "$MNT/v/F.done" ] && break; sleep 0.1; done
[ -e "$MNT/v/F.done" ] || fail "the victim did not write its file"

nobody /usr/bin/python3 -c '
import ctypes, mmap, os, sys
open("/proc/self/comm", "w").write("attacker-lf")
libc = ctypes.CDLL(None, use_errno=True)
libc.sync_file_range.argtypes = [ctypes.c_int, ctypes.c_longlong, ctypes.c_longlong, ctypes.c_uint]
SYNC_FILE_RANGE_WRITE = 2
f = os.open(sys.argv[1], os.O_RDONLY)
theirs = mmap.mmap(f, 32 << 20, mmap.MAP_SHARED, mmap.PROT_READ)
mine = mmap.mmap(-1, (128 << 10) - 4096)
mine.write(b"a" * len(mine))
out = os.open(sys.argv[2], os.O_WRONLY | os.O_CREAT | os.O_DIRECT, 0o644)
for i in range(32):
    if libc.sync_file_range(f, i << 20, 4096, SYNC_FILE_RANGE_WRITE) != 0:
        sys.exit("sync_file_range: errno %d" % ctypes.get_errno())
    page = memoryview(theirs)[i << 20:(i << 20) + 4096]
    if os.pwritev(out, [page, mine], i << 17) != 128 << 10:
        sys.exit("short write")
    page.release()' "$MNT/v/F" "$SCRATCH/up/a/out" || fail "the writer failed"
sync
DONE=$(wc -l < "$SCRATCH/out.json")
until [ "$(wc -l < "$SCRATCH/out.json")" -gt $((DONE + 2)) ]; do sleep 0.1; done
kill -INT "$TOOL"; wait "$TOOL"

mine=$(to_disk_sum "$SCRATCH/out.json" attacker-lf)
theirs=$(to_disk_sum "$SCRATCH/out.json" victim-db)
note "TO-DISK over the run: attacker-lf $mine bytes (wrote 4 MiB through the loop device), victim-db $theirs bytes (dirtied 128 KiB)"
jq -e -n --argjson t "$theirs" '$t <= 131072 + 524288' > /dev/null ||
	fail "the victim was charged $theirs bytes for direct writes through a loop device that led with its pages under writeback"
jq -e -n --argjson m "$mine" '$m >= 0.9 * 4194304' > /dev/null ||
	fail "the writer's own direct writes are not charged to it: $mine bytes of 4 MiB"
echo PASS
