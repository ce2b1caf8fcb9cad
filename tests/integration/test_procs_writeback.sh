#!/bin/bash
# Buffered writes land on the flushers: a buffered dd onto an ext4 file
# system on a loop device this test makes, then sync.
# - The JSON Dirty figure is the system's (/proc/meminfo), which other
#   writers on other disks move too, so it is not required to grow by our
#   dd's amount or to fall after sync: it is checked against /proc/meminfo
#   read by this test every 0.05 s over the same seconds (each sample lies
#   within what meminfo showed within 0.3 s of its time stamp).
# - What our dd did is checked on our own device: its 400 MB reach the
#   loop device's write counters (wkB_s summed over the run).
# - The kernel threads that write it out are labelled writeback, not
#   counted as the top writer.
# suite-budget: 20
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd jq losetup mkfs.ext4 mount
setup_scratch

attach_loop 600; L=$LOOP
N=$(basename "$L")
mkfs.ext4 -q -E nodiscard "$L" || fail "mkfs failed"
mount_scratch "$L" "$SCRATCH/mnt"

# meminfo's Dirty, stamped, every 0.05 s while the tool runs (no fork but
# sleep's: a logger that forks falls behind under this load).
( while :; do
	while read -r k v _; do [ "$k" = Dirty: ] && break; done < /proc/meminfo
	echo "$EPOCHREALTIME $v"
	sleep 0.05
done ) > "$SCRATCH/meminfo.log" &
MEMLOG=$!
"$BIN" --json -d 0.25 -n 40 --no-probe --procs 200 > "$SCRATCH/out.json" &
P=$!
sleep 0.5
dd if=/dev/zero of="$SCRATCH/mnt/big" bs=1M count=400 status=none || fail "dd failed"
sleep 1
sync "$SCRATCH/mnt/big" &
wait $P || fail "iosched-top exited $?"
kill $MEMLOG
wait

# Dirty as the tool saw it, against meminfo around each sample's time.
bad=$(jq -r '"\(.ts) \(.writeback.dirty_kB)"' "$SCRATCH/out.json" | awk -v mlog="$SCRATCH/meminfo.log" '
	BEGIN { while ((getline l < mlog) > 0) { split(l, f, " "); t[++n] = f[1]; v[n] = f[2] } }
	# The readings from the last one before ts - 0.3 s to the first one
	# after ts + 0.3 s: a late reading of the logger cannot leave a gap.
	{ lo = -1; hi = -1; a = 1; b = n
	  for (i = 1; i <= n; i++) { if (t[i] <= $1 - 0.3) a = i; if (t[i] >= $1 + 0.3) { b = i; break } }
	  step = 0
	  for (i = a; i <= b; i++) { if (lo < 0 || v[i] < lo) lo = v[i]; if (v[i] > hi) hi = v[i]
	    d = i > a ? v[i] - v[i - 1] : 0; if (d < 0) d = -d; if (d > step) step = d }
	  if (lo < 0) { print "no meminfo reading near " $1; next }
	  # kB: a page-cache figure moves between two reads of the logger,
	  # by up to the largest step seen between two of them there (a peak
	  # or a trough between two reads is missed by the logger, not by the
	  # tool: seen, 292 MB against a highest logged 285 MB while dd wrote
	  # at ~1 GB/s, and 312 kB against a lowest logged 5456 kB as sync
	  # emptied it).
	  slack = 4096 + step
	  if ($2 < lo - slack || $2 > hi + slack) print "at " $1 ": " $2 " kB, meminfo " lo "-" hi " kB" }') ||
	fail "cannot compare with meminfo"
[ -z "$bad" ] || fail "Dirty does not follow /proc/meminfo: $bad"
maxdirty=$(jq -s 'map(.writeback.dirty_kB) | max' "$SCRATCH/out.json")
note "Dirty (system-wide) up to $maxdirty kB, following /proc/meminfo in all $(wc -l < "$SCRATCH/out.json") samples"
# each line's own interval: a late refresh on a loaded machine covers more than 0.25 s
written=$(jq -s --arg n "$N" 'map(.interval_s as $i | .disks[] | select(.name == $n) | .wkB_s * $i) | add' "$SCRATCH/out.json")
note "written to $N while watched: $written kB of the 409600 kB dd wrote"
awk -v w="$written" 'BEGIN { exit !(w >= 409600 * 0.9) }' || fail "only $written kB reached $N (dd wrote 409600 kB)"
# (a flusher is kind writeback; jbd2, which writes the journal, kind journal)
jq -s -e '[.[].procs[] | select((.kind == "writeback" or .kind == "journal") and .write_Bps > 0)] | length > 0' "$SCRATCH/out.json" >/dev/null ||
	fail "no writeback thread with writes: $(jq -s -c '[.[].procs[] | select(.write_Bps > 0) | .comm] | unique' "$SCRATCH/out.json")"
note "writeback threads seen: $(jq -s -r '[.[].procs[] | select((.kind == "writeback" or .kind == "journal") and .write_Bps > 0) | "\(.comm) (\(.kind))"] | unique | join(", ")' "$SCRATCH/out.json")"
jq -s -e '[.[].writers.dirtying_top | select(. != null) | .comm] | all(test("^(kworker|jbd2)") | not)' "$SCRATCH/out.json" >/dev/null ||
	fail "a flusher was named the top writer"
tasks_from_is "$SCRATCH/out.json"
echo "PASS"
