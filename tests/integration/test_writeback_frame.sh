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
open("/proc/self/comm", "w").write("attacker-sf")
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
    page.release()' "$MNT/v/F" "$MNT/a/out" || fail "the writer failed"
sync
DONE=$(wc -l < "$SCRATCH/out.json")
until [ "$(wc -l < "$SCRATCH/out.json")" -gt $((DONE + 2)) ]; do sleep 0.1; done
kill -INT "$TOOL"; wait "$TOOL"

mine=$(to_disk_sum "$SCRATCH/out.json" attacker-sf)
theirs=$(to_disk_sum "$SCRATCH/out.json" victim-db)
note "TO-DISK over the run: attacker-sf $mine bytes (wrote 4 MiB), victim-db $theirs bytes (dirtied 128 KiB)"
jq -e -n --argjson t "$theirs" '$t <= 131072 + 524288' > /dev/null ||
	fail "the victim was charged $theirs bytes for direct writes that led with its pages under writeback"
jq -e -n --argjson m "$mine" '$m >= 0.9 * 4194304' > /dev/null ||
	fail "the writer's own direct writes are not charged to it: $mine bytes of 4 MiB"
echo PASS
