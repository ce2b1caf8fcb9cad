#!/bin/bash
# Buffered writes land on the flushers: a buffered dd onto an ext4 file
# system on a loop device this test makes, then sync. The JSON writeback
# figures move (Dirty grows, then falls), and the kernel threads that
# write it out are labelled writeback, not counted as the top writer.
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd jq losetup mkfs.ext4 mount
setup_scratch

attach_loop 600; L=$LOOP
mkfs.ext4 -q -E nodiscard "$L" || fail "mkfs failed"
mkdir "$SCRATCH/mnt"
mount "$L" "$SCRATCH/mnt" || fail "mount failed"
on_exit "umount $SCRATCH/mnt"
base=$(awk '/^Dirty:/ { print $2 }' /proc/meminfo)

"$BIN" --json -d 0.25 -n 40 --no-probe --procs 200 > "$SCRATCH/out.json" &
P=$!
sleep 0.5
dd if=/dev/zero of="$SCRATCH/mnt/big" bs=1M count=400 status=none || fail "dd failed"
sleep 1
sync &
wait $P || fail "iosched-top exited $?"
wait

maxdirty=$(jq -s 'map(.writeback.dirty_kB) | max' "$SCRATCH/out.json")
maxwb=$(jq -s 'map(.writeback.writeback_kB) | max' "$SCRATCH/out.json")
note "Dirty from $base kB up to $maxdirty kB; Writeback up to $maxwb kB"
[ "$maxdirty" -gt $((base + 50 * 1024)) ] || fail "Dirty did not grow with 400 MB of buffered writes"
# After sync the dirty pages are gone again: Dirty moved both ways. (The
# Writeback figure is shown too, but it lasts only while pages are in
# flight: a 0.25 s sample can miss it, so it is not required.)
lastdirty=$(tail -n1 "$SCRATCH/out.json" | jq '.writeback.dirty_kB')
[ "$lastdirty" -lt $((maxdirty / 2)) ] || fail "Dirty did not fall after sync ($lastdirty kB of $maxdirty kB)"
jq -s -e '[.[].procs[] | select(.kind == "writeback" and .write_Bps > 0)] | length > 0' "$SCRATCH/out.json" >/dev/null ||
	fail "no writeback thread with writes: $(jq -s -c '[.[].procs[] | select(.write_Bps > 0) | .comm] | unique' "$SCRATCH/out.json")"
note "writeback threads seen: $(jq -s -r '[.[].procs[] | select(.kind == "writeback" and .write_Bps > 0) | .comm] | unique | join(", ")' "$SCRATCH/out.json")"
jq -s -e '[.[].writers.top | select(. != null) | .comm] | all(test("^(kworker|jbd2)") | not)' "$SCRATCH/out.json" >/dev/null ||
	fail "a flusher was named the top writer"
echo "PASS"
