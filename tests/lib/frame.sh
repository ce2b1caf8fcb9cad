# Two sides of a "frame": a direct write that leads with a page of another
# user's file while that page is being written back (anyone who may read
# a file can start its writeback: sync_file_range on a read-only
# descriptor). Sourced by the tests that check such a write stays the
# writer's (test_writeback_frame.sh, test_loop_frame.sh), after common.sh.

# frame_victim FILE: uid 1's "victim-db" dirties 4 KiB at each MiB of FILE
# (32 MiB, mode 0644) and sleeps; VICTIM its pid (killed at exit). Returns
# once the pages are dirtied (up to 60 s: python's start and the file's
# creation on a slow disk took over 5 s on a loaded CI machine).
frame_victim() {
	setpriv --reuid=1 --regid=1 --clear-groups -- /usr/bin/python3 -c '
import os, sys, time
open("/proc/self/comm", "w").write("victim-db")
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT, 0o644)
for i in range(32):
    os.pwrite(fd, b"v" * 4096, i << 20)
os.ftruncate(fd, 32 << 20)
os.close(fd)
open(sys.argv[1] + ".done", "w").close()
time.sleep(120)' "$1" &
	VICTIM=$!
	on_exit "kill $VICTIM 2>/dev/null"
	for _ in $(seq 600); do [ -e "$1.done" ] && break; sleep 0.1; done
	[ -e "$1.done" ] || fail "the victim did not write its file"
}

# frame_attacker VICTIM_FILE OUT COMM: nobody's COMM, for each of the
# victim's 32 pages: starts its writeback, then at once writes 128 KiB
# with O_DIRECT to OUT, the first 4 KiB from a read-only mapping of that
# page (4 MiB in all).
frame_attacker() {
	nobody /usr/bin/python3 -c '
import ctypes, mmap, os, sys
open("/proc/self/comm", "w").write(sys.argv[3])
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
    page.release()' "$1" "$2" "$3" || fail "the writer failed"
}

# frame_verdict ATTACKER HOW: once the writes reached the disk (a sync and
# two refreshes), the run ($TOOL, --json into $SCRATCH/out.json) ends; the
# attacker's TO-DISK is its 4 MiB (at least 90 %), victim-db's at most its
# own 128 KiB and 512 KiB more. HOW says how the attacker wrote.
frame_verdict() {
	local mine theirs done
	sync
	done=$(wc -l < "$SCRATCH/out.json")
	until [ "$(wc -l < "$SCRATCH/out.json")" -gt $((done + 2)) ]; do sleep 0.1; done
	kill -INT "$TOOL"; wait "$TOOL"
	mine=$(to_disk_sum "$SCRATCH/out.json" "$1")
	theirs=$(to_disk_sum "$SCRATCH/out.json" victim-db)
	note "TO-DISK over the run: $1 $mine bytes (wrote 4 MiB $2), victim-db $theirs bytes (dirtied 128 KiB)"
	jq -e -n --argjson t "$theirs" '$t <= 131072 + 524288' > /dev/null ||
		fail "the victim was charged $theirs bytes for direct writes ($2) that led with its pages under writeback"
	jq -e -n --argjson m "$mine" '$m >= 0.9 * 4194304' > /dev/null ||
		fail "the writer's own direct writes are not charged to it: $mine bytes of 4 MiB"
}
