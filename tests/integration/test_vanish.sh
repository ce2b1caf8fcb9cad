#!/bin/bash
# A disk that goes away while iosched-top runs is dropped from the output,
# with no crash and no error exit; the run goes on to its last interval.
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd jq losetup
setup_scratch

attach_loop 64; L=$LOOP
N=$(basename "$L")
"$BIN" -b --json -d 0.2 -n 15 --no-probe > "$SCRATCH/out.json" &
P=$!
sleep 1
losetup -d "$L" || fail "cannot detach $L"
LOOPS="" # detached already
wait $P || fail "iosched-top exited $? after $N went away"
[ "$(wc -l < "$SCRATCH/out.json")" -eq 15 ] || fail "expected 15 lines, got $(wc -l < "$SCRATCH/out.json")"
head -n 2 "$SCRATCH/out.json" | jq -e --arg n "$N" '.disks | map(.name) | index($n) != null' >/dev/null ||
	fail "$N missing before it was detached"
tail -n 2 "$SCRATCH/out.json" | jq -e --arg n "$N" '.disks | map(.name) | index($n) == null' >/dev/null ||
	fail "$N still listed after it was detached"
echo "PASS"
