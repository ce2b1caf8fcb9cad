#!/bin/bash
# Root's probe in files mode (no_dev_nodes) on XFS reads a file that nobody
# owns, 32 MiB in 32 extents; nobody deduplicates MiB 1 to 31 onto MiB 0
# (FIDEDUPERANGE: a file's owner may, on XFS and btrfs), which changes
# none of the file's times, its size or its block count: 32 MiB of ranges
# would then be read from one MiB of the disk. The probe must see that the
# range it read is no longer where the walk found it and drop the file;
# the choice made again (half of the files went) then reads the file's
# one MiB once: 65 MiB in all, not 96.
# suite-budget: 25
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd setpriv jq losetup mkfs.xfs unshare python3
setup_scratch
chmod 755 "$SCRATCH"
attach_loop 384
L=$LOOP N=$(basename "$LOOP") MNT=$SCRATCH/mnt
mkfs.xfs -q -f -K "$L" || fail "mkfs.xfs failed"
mount_scratch "$L" "$MNT"
U=$MNT/home/u
mkdir -p "$MNT/usr" "$U"
dd if=/dev/urandom of="$MNT/usr/root-a" bs=1M count=64 oflag=direct status=none || fail "cannot write root's file"
# one random MiB 32 times, each write beside one to a filler file: extents
# apart, so that a dedupe cannot show as a change of the block count
head -c 1M /dev/urandom > "$SCRATCH/block"
for k in $(seq 0 31); do
	dd if="$SCRATCH/block" of="$U/mine" bs=1M seek="$k" count=1 conv=notrunc oflag=direct status=none &&
		dd if="$SCRATCH/block" of="$U/filler" bs=1M seek="$k" count=1 conv=notrunc oflag=direct status=none ||
		fail "cannot write nobody's file"
done
rm "$U/filler"
chown -R 65534:65534 "$U"
sync

files_probe_start

# As nobody: MiB 1..31 deduplicated onto MiB 0; the file's stat unchanged.
nobody /usr/bin/python3 -c "
import fcntl, os, struct
F = '$U/mine'
before = os.stat(F)
fd = os.open(F, os.O_RDWR)
for k in range(1, 32):
    arg = bytearray(struct.pack('QQHHI', 0, 1 << 20, 1, 0, 0) + struct.pack('qQQiI', fd, k << 20, 0, 0, 0))
    fcntl.ioctl(fd, 0xC0189436, arg)  # FIDEDUPERANGE
    status = struct.unpack_from('i', arg, 24 + 24)[0]
    if status != 0:
        raise SystemExit('dedupe of MiB %d: status %d' % (k, status))
os.close(fd)
after = os.stat(F)
same = lambda s: (s.st_size, s.st_mtime_ns, s.st_ctime_ns, s.st_blocks)
if same(before) != same(after):
    raise SystemExit('the dedupe changed the stat: %s -> %s' % (same(before), same(after)))
" || fail "cannot deduplicate as nobody, or it showed in the stat"
# the deduplicated file no longer read as 32 MiB
files_probe_end '.span_bytes <= (65 * 1048576)'
echo "PASS"
