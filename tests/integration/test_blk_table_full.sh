#!/bin/bash
# The BPF part's table of (process, disk, op) entries does not stay full
# of idle processes: nobody's 100 processes each do one 4 KiB O_DIRECT read
# and then sleep, more entries than the table holds (build/smallstats of
# make test-builds, whose table holds 64; 4096 in the real one, which
# 4,300 such processes filled in a review); three refreshes later uid 1's
# "victim-dd" writes 16 MiB O_DIRECT. Its TO-DISK is at least 90 % of that
# (0 before: every process started after the fill was counted only in
# blk.uncounted_requests).
# suite-budget: 30
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd jq losetup mkfs.ext4 dd python3 setpriv
setup_scratch
[ -x "$TOP/build/smallstats/iosched-top" ] || skip "no test build with a small table (BPF not built)"

ext4_loop 256
mkdir -p "$MNT/a" "$MNT/v"; chown 65534:65534 "$MNT/a"; chown 1:1 "$MNT/v"
chmod 755 "$SCRATCH" "$MNT" "$MNT/a" "$MNT/v"
dd if=/dev/zero of="$MNT/a/src" bs=1M count=1 status=none && chown 65534:65534 "$MNT/a/src"
cp "$(command -v dd)" "$SCRATCH/victim-dd"
sync

BIN=$TOP/build/smallstats/iosched-top json_with_blk "$SCRATCH/out.json" -d 0.5 --disk "$N" --no-probe --procs 100000
setpriv --reuid=65534 --regid=65534 --clear-groups -- /usr/bin/python3 -c '
import ctypes, mmap, os, sys, time
libc = ctypes.CDLL(None)
for i in range(100):
    if os.fork() == 0:
        libc.prctl(1, 9)  # PR_SET_PDEATHSIG: SIGKILL when the filler ends
        buf = mmap.mmap(-1, 4096)
        fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECT)
        os.preadv(fd, [buf], (i % 256) * 4096)
        time.sleep(120)
        os._exit(0)
open(sys.argv[2], "w").close()
time.sleep(120)' "$MNT/a/src" "$MNT/a/filled" &
FILLER=$!
on_exit "kill $FILLER 2>/dev/null"
for _ in $(seq 300); do [ -e "$MNT/a/filled" ] && break; sleep 0.1; done
[ -e "$MNT/a/filled" ] || fail "the filler did not start its processes"
for _ in 1 2 3; do next_line "$SCRATCH/out.json"; done
setpriv --reuid=1 --regid=1 --clear-groups -- "$SCRATCH/victim-dd" if=/dev/zero of="$MNT/v/f" bs=1M count=16 \
	oflag=direct status=none &
V=$!
wait "$V" || fail "victim-dd failed"
next_line "$SCRATCH/out.json"; next_line "$SCRATCH/out.json"
kill -INT "$TOOL"; wait "$TOOL" || fail "iosched-top exited $?: $(cat "$SCRATCH/err")"

victim=$(to_disk_sum "$SCRATCH/out.json" victim-dd "$V")
uncounted=$(tail -n1 "$SCRATCH/out.json" | jq '.blk.uncounted_requests // 0')
note "TO-DISK of victim-dd over the run: $victim bytes (wrote 16 MiB = 16777216); requests the table had no room for: $uncounted"
jq -e -n --argjson v "$victim" '$v >= 0.9 * 16777216' > /dev/null ||
	fail "victim-dd's 16 MiB are not its TO-DISK ($victim bytes) once idle processes filled the table ($uncounted requests uncounted)"
echo PASS
