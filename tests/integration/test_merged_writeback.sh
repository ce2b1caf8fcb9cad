#!/bin/bash
# Bios merged into a request after its owner is known are charged to
# their own owner, not to the owner of the request's first page. On ext4
# on a loop device, for 8 rounds: uid 1's "victim-sp" writes one new 4 KiB
# file and leaves it dirty; right after, nobody's "attacker-sp" writes 16
# new 60 KiB files (ext4 gives small files blocks one after another, from
# the same group) and syncs the filesystem: the flusher writes the inodes
# in the order they were dirtied, in one plug, and the attacker's blocks
# that follow the victim's merge into the request the victim's page
# heads. Over the run the victim's TO-DISK stays under 4 times the 32 KiB
# it wrote (it was charged 4 MiB, the attacker's, before), and the
# attacker's is at least 80 % of its 7.5 MiB.
# suite-budget: 20
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd jq losetup mkfs.ext4 setpriv python3 filefrag
setup_scratch

# (4 KiB blocks: with mkfs's 1 KiB for a small filesystem, 60 KiB is past
# the size whose blocks come from the group)
attach_loop 256
L=$LOOP N=$(basename "$LOOP") MNT=$SCRATCH/mnt
mkfs.ext4 -q -b 4096 -E nodiscard "$L" || fail "mkfs failed"
mount_scratch "$L" "$MNT"
mkdir -p "$MNT/v" "$MNT/a"; chown 1:1 "$MNT/v"; chown 65534:65534 "$MNT/a"
chmod 755 "$SCRATCH" "$MNT" "$MNT/v" "$MNT/a"
# writer DIR PREFIX COUNT SIZE [SYNC]: for each line on stdin, COUNT new
# files of SIZE bytes, then (SYNC) the filesystem synced; says the line back
cat > "$SCRATCH/writer" <<'PY'
#!/usr/bin/python3
import os, subprocess, sys
d, prefix, count, size = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
sync = len(sys.argv) > 5
for line in sys.stdin:
    i = line.strip()
    for k in range(count):
        fd = os.open("%s/%s%s_%d" % (d, prefix, i, k), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        os.write(fd, b"x" * size)
        if sync and k == count - 1:
            subprocess.run(["sync", "-f", d], check=True)
        os.close(fd)
    print(i, flush=True)
PY
cp "$SCRATCH/writer" "$SCRATCH/victim-sp"; cp "$SCRATCH/writer" "$SCRATCH/attacker-sp"
chmod 755 "$SCRATCH/victim-sp" "$SCRATCH/attacker-sp"
mkfifo "$SCRATCH/vin" "$SCRATCH/vout" "$SCRATCH/ain" "$SCRATCH/aout"
chmod 666 "$SCRATCH/vin" "$SCRATCH/vout" "$SCRATCH/ain" "$SCRATCH/aout"

json_with_blk "$SCRATCH/out.json" -d 1 --disk "$N" --no-probe --procs 100000
sync
setpriv --reuid=1 --regid=1 --clear-groups "$SCRATCH/victim-sp" "$MNT/v" v 1 4096 < "$SCRATCH/vin" > "$SCRATCH/vout" &
V=$!
setpriv --reuid=65534 --regid=65534 --clear-groups "$SCRATCH/attacker-sp" "$MNT/a" a 16 61440 sync \
	< "$SCRATCH/ain" > "$SCRATCH/aout" &
A=$!
on_exit "kill $V $A 2>/dev/null"
exec 5> "$SCRATCH/vin" 6> "$SCRATCH/ain" 7< "$SCRATCH/vout" 8< "$SCRATCH/aout"
on_exit "exec 5>&- 6>&- 7<&- 8<&-"
for i in 1 2 3 4 5 6 7 8; do
	echo "$i" >&5; read -r _ <&7
	sleep 0.03
	echo "$i" >&6; read -r _ <&8
	sleep 0.03
done
exec 5>&- 6>&-
wait "$V" "$A"
next_line "$SCRATCH/out.json"; next_line "$SCRATCH/out.json"
kill -INT "$TOOL"; wait "$TOOL" || fail "iosched-top exited $?: $(cat "$SCRATCH/err")"

# the first block of each file, in the order dirtied: the attacker's files
# follow the victim's in some rounds (the allocation groups are per CPU)
for i in 1 2 3 4 5 6 7 8; do
	printf '%s' "v$i: $(filefrag -v "$MNT/v/v${i}_0" | awk '$1 == "0:" { print $4 }')"
	for k in 0 1; do printf ' %s' "$(filefrag -v "$MNT/a/a${i}_$k" | awk '$1 == "0:" { print $4 }')"; done
	echo
done > "$SCRATCH/blocks"
note "first blocks (victim's, then the attacker's first two): $(tr '\n' ';' < "$SCRATCH/blocks")"
victim=$(to_disk_sum "$SCRATCH/out.json" victim-sp "$V")
attacker=$(to_disk_sum "$SCRATCH/out.json" attacker-sp "$A")
note "TO-DISK over the run: victim-sp $victim bytes (wrote 32 KiB), attacker-sp $attacker bytes (wrote 7.5 MiB)"
jq -e -n --argjson v "$victim" '$v <= 4 * 32768' > /dev/null ||
	fail "victim-sp, which wrote 32 KiB, was charged $victim bytes: the attacker's, merged behind its pages"
jq -e -n --argjson a "$attacker" '$a >= 0.8 * 7864320' > /dev/null ||
	fail "attacker-sp's 7.5 MiB are not its TO-DISK: $attacker bytes"
echo PASS
