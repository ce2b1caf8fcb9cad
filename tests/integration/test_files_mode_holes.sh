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

no_dev_nodes "$BIN" --json -d .5 -n 14 --disk "$N" --probe-rate 200 --no-bpf --procs 0 > "$SCRATCH/out.json" \
	2> "$SCRATCH/err" &
RUN=$!
on_exit "kill $RUN 2>/dev/null"
first=$(first_probe_line "$SCRATCH/out.json")
[ -n "$first" ] || fail "the probe never read: $(tail -c 600 "$SCRATCH/err")"
note "first: $(echo "$first" | jq -c '{mode, files, span_bytes}')"
echo "$first" | jq -e '.mode == "files" and .files == 2' > /dev/null || fail "not both files in files mode: $first"

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
wait $RUN
rc=$?
[ "$rc" -eq 0 ] || fail "the run exited $rc: $(tail -c 600 "$SCRATCH/err")"
last=$(tail -n 1 "$SCRATCH/out.json" | jq -c '.disks[0].probe')
note "last: $(echo "$last" | jq -c '{mode, n, files, span_bytes, why}')"
echo "$last" | jq -e '.mode == "files" and .n > 0' > /dev/null || fail "the probe did not read on: $last"
echo "$last" | jq -e '.files == 1' > /dev/null || fail "the file full of holes is still read: $last"
echo "PASS"
