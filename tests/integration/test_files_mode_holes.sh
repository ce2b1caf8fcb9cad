#!/bin/bash
# Root's probe in files mode (no_dev_nodes) reads a file that nobody owns;
# nobody punches holes through all of it and puts its modification time
# back (both are the owner's to do): the reads would then be of holes,
# answered without the disk, and the probe would report a fast disk. The
# probe must see the change (the change time and the blocks, which no one
# but the kernel sets) and drop the file: the set keeps root's file only.
# suite-budget: 25
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd setpriv jq losetup mkfs.ext4 unshare python3
setup_scratch
chmod 755 "$SCRATCH"
ext4_loop 512
U=$MNT/home/u
mkdir -p "$MNT/usr" "$U"
dd if=/dev/urandom of="$MNT/usr/root-a" bs=1M count=64 oflag=direct status=none || fail "cannot write root's file"
dd if=/dev/urandom of="$U/mine" bs=1M count=32 oflag=direct status=none || fail "cannot write nobody's file"
chown -R 65534:65534 "$U"
sync

files_probe_start

# As nobody: holes through the whole file, then the old mtime back.
nobody /usr/bin/python3 -c "
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
libc.fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_long, ctypes.c_long]
F = '$U/mine'
st = os.stat(F)
fd = os.open(F, os.O_WRONLY)
if libc.fallocate(fd, 3, 0, st.st_size) != 0:  # PUNCH_HOLE | KEEP_SIZE
    raise SystemExit('fallocate: ' + os.strerror(ctypes.get_errno()))
os.utime(fd, ns=(st.st_atime_ns, st.st_mtime_ns))
os.close(fd)
after = os.stat(F)
assert after.st_mtime_ns == st.st_mtime_ns and after.st_size == st.st_size and after.st_blocks < st.st_blocks
" || fail "cannot punch the holes as nobody"
# the file full of holes no longer read: root's file only
files_probe_end '.files == 1'
echo "PASS"
