#!/bin/bash
# A disk that goes away while iosched-top runs is dropped from the output,
# with no crash and no error exit; the run goes on to its last interval.
# The detach itself may wait for another program's last close (another
# iosched-top's probe read in flight, say): the test waits for it, and the
# run is long enough to see the disk gone after it. Another program may
# attach a new device under the freed name (seen: a concurrent suite took
# loop1 2 s later): listed again after its "disk" event, that is right.
# suite-alone: it watches a loop device's name go (or come): a test beside it may attach another device under the same name
# suite-budget: 10
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd jq losetup
setup_scratch

attach_loop 64; L=$LOOP
N=$(basename "$L")
"$BIN" -b --json -d 0.2 -n 30 --no-probe > "$SCRATCH/out.json" &
P=$!
sleep 1
t0=$(date +%s.%N)
losetup -d "$L" || fail "cannot detach $L"
for _ in $(seq 300); do [ "$(cat "/sys/block/$N/size" 2>/dev/null || echo 0)" = 0 ] && break; sleep 0.01; done
[ "$(cat "/sys/block/$N/size" 2>/dev/null || echo 0)" = 0 ] || fail "$N still attached 3 s after losetup -d"
t1=$(date +%s.%N)
LOOPS="" # detached already
wait $P || fail "iosched-top exited $? after $N went away"
[ "$(wc -l < "$SCRATCH/out.json")" -eq 30 ] || fail "expected 30 lines, got $(wc -l < "$SCRATCH/out.json")"
head -n 2 "$SCRATCH/out.json" | jq -e --arg n "$N" '.disks | map(.name) | index($n) != null' >/dev/null ||
	fail "$N missing before it was detached"
# Gone from the first line after one refresh (0.2 s, and slack) past the
# detach, and not listed again unless a device was attached under the same
# name (another program may take the free number: a "disk" event says so).
jq -e -s --arg n "$N" --argjson t "$t1" '
	[.[] | select(.ts > $t + 0.45)] as $after
	| ($after | length) > 0
	and ($after[0].disks | map(.name) | index($n) == null)
	and ([foreach $after[] as $l (false; . or any($l.events[]; .type == "disk" and .disk == $n);
		(($l.disks | map(.name) | index($n)) == null) or .)] | all)' "$SCRATCH/out.json" >/dev/null ||
	fail "$N still listed after it was detached (losetup -d at $t0, size 0 at $t1; per line, time and listed: $(jq -r --arg n "$N" '"\(.ts) \(.disks | map(.name) | index($n) != null)"' "$SCRATCH/out.json" | tr '\n' ' '))"
echo "PASS"
