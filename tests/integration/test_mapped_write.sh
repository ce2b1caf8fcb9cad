#!/bin/bash
# A direct write whose buffer starts with a page of another user's file
# (a read-only mapping of it) is the writer's own, not that file's last
# dirtier's: the page is in the file's page cache but not under writeback,
# and anyone who may read a file could otherwise charge their writes to
# whoever last wrote it (a service, another user).
#  - uid 1's "victim-db" writes 64 KiB to its own file (0644) and sleeps;
#  - nobody's "attacker-mf" writes 64 MiB with O_DIRECT to its own file,
#    each 1 MiB write's first 4 KiB from a read-only mapping of that file;
#  - the attacker's TO-DISK is its 64 MiB (at least 90 %), the victim's is
#    at most its own 64 KiB and 1 MiB more.
# suite-budget: 15
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd jq losetup mkfs.ext4 python3 setpriv
setup_scratch

ext4_loop 256
mkdir -p "$MNT/v" "$MNT/a"
chown 1:1 "$MNT/v"; chown 65534:65534 "$MNT/a"; chmod 755 "$SCRATCH" "$MNT" "$MNT/v" "$MNT/a"

json_with_blk "$SCRATCH/out.json" -d 0.5 --disk "$N" --no-probe --procs 100000

setpriv --reuid=1 --regid=1 --clear-groups -- /usr/bin/python3 -c '
import os, sys, time
open("/proc/self/comm", "w").write("victim-db")
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT, 0o644)
os.write(fd, b"v" * 65536)
os.close(fd)
time.sleep(60)' "$MNT/v/F" &
VICTIM=$!
on_exit "kill $VICTIM 2>/dev/null"
for _ in $(seq 300); do [ -s "$MNT/v/F" ] && break; sleep 0.1; done
sync # the victim's own 64 KiB written back, charged to it
sleep 1

nobody /usr/bin/python3 -c '
import mmap, os, sys
open("/proc/self/comm", "w").write("attacker-mf")
f = os.open(sys.argv[1], os.O_RDONLY)
theirs = mmap.mmap(f, 4096, mmap.MAP_SHARED, mmap.PROT_READ)
mine = mmap.mmap(-1, (1 << 20) - 4096)
mine.write(b"a" * len(mine))
out = os.open(sys.argv[2], os.O_WRONLY | os.O_CREAT | os.O_DIRECT, 0o644)
for i in range(64):
    if os.pwritev(out, [theirs, mine], i << 20) != 1 << 20:
        sys.exit("short write")' "$MNT/v/F" "$MNT/a/out" || fail "the mapped writer failed"
ATTACKER_DONE=$(wc -l < "$SCRATCH/out.json")
# two more lines: the last writes in a sample
until [ "$(wc -l < "$SCRATCH/out.json")" -gt $((ATTACKER_DONE + 2)) ]; do sleep 0.1; done
kill -INT "$TOOL"; wait "$TOOL"

mine=$(to_disk_sum "$SCRATCH/out.json" attacker-mf)
theirs=$(to_disk_sum "$SCRATCH/out.json" victim-db)
note "TO-DISK over the run: attacker-mf $mine bytes (wrote 64 MiB), victim-db $theirs bytes (wrote 64 KiB)"
jq -e -n --argjson t "$theirs" '$t <= 65536 + 1048576' > /dev/null ||
	fail "the victim was charged $theirs bytes for the attacker's direct writes from a mapping of its file"
jq -e -n --argjson m "$mine" '$m >= 0.9 * 67108864' > /dev/null ||
	fail "the attacker's own direct writes are not charged to it: $mine bytes of 64 MiB"
echo PASS
