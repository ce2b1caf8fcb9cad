#!/bin/bash
# A loop device's direct I/O turned off (or on) while the tool runs moves
# where its writers are counted at the next refresh, not at the next
# rescan (no uevent says so): with direct I/O the disk under its file is
# the bottom ("below" in a recording's disks), without it the loop device
# is.
# suite-budget: 10
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd jq losetup
setup_scratch

attach_loop 64; L=$LOOP
N=$(basename "$L")
[ "$(cat "/sys/block/$N/loop/dio")" = 1 ] || skip "$N did not get direct I/O (the backing filesystem refuses it)"
"$BIN" -b -d 0.3 --disk "$N" --no-probe --record "$SCRATCH/rec" > /dev/null 2> "$SCRATCH/err" &
TOOL=$!
on_exit "kill $TOOL 2>/dev/null"
below_now() { tail -n1 "$SCRATCH/rec" | jq -r --arg n "$N" '.disks[]? | select(.name == $n) | .below // ""'; }
for _ in $(seq 300); do [ -n "$(below_now 2>/dev/null)" ] && break; sleep 0.1; done
before=$(below_now)
[ -n "$before" ] || fail "$N with direct I/O has no disk below it: $(tail -n1 "$SCRATCH/rec" | head -c 600)"
losetup --direct-io=off "$L" || fail "cannot turn direct I/O off on $N"
t0=$(date +%s.%N)
for _ in $(seq 50); do [ -z "$(below_now)" ] && break; sleep 0.1; done
after=$(below_now)
note "$N: below it $before with direct I/O; \"$after\" $(echo "$(date +%s.%N) - $t0" | bc) s after it was turned off"
[ -z "$after" ] || fail "$N without direct I/O still counts its writers on $after 5 s later"
echo PASS
