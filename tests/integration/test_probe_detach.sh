#!/bin/bash
# A device detached while it is probed: the probe ends cleanly with an
# event saying why, the program keeps running to its last interval and
# exits 0. The probe must not keep the device alive: a loop device that is
# open when `losetup -d` runs is only detached at its last close (losetup
# then reports ENXIO), so the probe reopens its node every second.
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd jq losetup
setup_scratch

attach_loop 64 fill; L=$LOOP
N=$(basename "$L")
"$BIN" --json -d 0.25 -n 16 --probe "$N" --probe-rate max > "$SCRATCH/out.json" &
P=$!
sleep 1.2
losetup -d "$L" 2>/dev/null # deferred while open: see above
for _ in $(seq 30); do [ "$(cat "/sys/block/$N/size")" = 0 ] && break; sleep 0.1; done
[ "$(cat "/sys/block/$N/size")" = 0 ] || fail "$N still attached 3 s after losetup -d: the probe holds it"
LOOPS=""
wait $P || fail "iosched-top exited $? after $N was detached while probed"
[ "$(wc -l < "$SCRATCH/out.json")" -eq 16 ] || fail "expected 16 lines"
head -n 3 "$SCRATCH/out.json" | tail -n1 | jq -e --arg n "$N" '.disks[] | select(.name == $n) | .probe.n > 0' >/dev/null ||
	fail "$N was not probed before the detach"
jq -s -e --arg n "$N" '[.[].events[] | select(.type == "probe" and .disk == $n and (.ok | not))] | length >= 1' \
	"$SCRATCH/out.json" >/dev/null || fail "no probe event for $N"
note "event: $(jq -s -r --arg n "$N" '[.[].events[] | select(.disk == $n)][0].error' "$SCRATCH/out.json")"
tail -n1 "$SCRATCH/out.json" | jq -e --arg n "$N" '.disks | map(.name) | index($n) == null' >/dev/null ||
	fail "$N still listed at the end"
echo "PASS"
