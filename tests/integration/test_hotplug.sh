#!/bin/bash
# Hot-plug: a loop device attached while iosched-top runs appears within
# one refresh, with a "disk" event; detached, it goes within one refresh,
# with an event. The list of disks is enumerated again only when the
# kernel's uevent monitor says something changed (or every 30 s), so an
# attach seen within one 0.5 s refresh can only have come from the
# monitor: the test fails if the monitor does not work.
# suite-binaries: plain san   it times what the user sees (the shipped build); the sanitizer build is the slower case for its bound
# suite-alone: it watches a loop device's name go (or come): a test beside it may attach another device under the same name
# suite-budget: 20
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd jq losetup
setup_scratch

now() { date +%s.%N; }
"$BIN" -b --json -d 0.5 -n 14 --no-probe > "$SCRATCH/out.json" 2> "$SCRATCH/err" &
P=$!
on_exit "kill $P"
sleep 2
t0=$(now) # samples and events before this are about other devices of the same name
attach_loop 16; L=$LOOP
N=$(basename "$L")
t_attach=$(now)
sleep 2.5
losetup -d "$L" || fail "cannot detach $L"
t_detach=$(now)
LOOPS="" # detached already
wait "$P"; rc=$?
[ "$rc" = 0 ] || fail "exit status $rc: $(cat "$SCRATCH/err")"

# The first sample that lists the disk, and the first after the detach that does not.
seen=$(jq -r --arg n "$N" --argjson t "$t0" 'select(.ts > $t and any(.disks[]; .name == $n)) | .ts' "$SCRATCH/out.json" | head -n1)
[ -n "$seen" ] || fail "$N never appeared"
gone=$(jq -r --arg n "$N" --argjson t "$t_detach" 'select(.ts > $t and (any(.disks[]; .name == $n) | not)) | .ts' \
	"$SCRATCH/out.json" | head -n1)
[ -n "$gone" ] || fail "$N still listed after the detach"
in_appear=$(awk -v a="$seen" -v b="$t_attach" 'BEGIN { printf "%.2f", a - b }')
in_gone=$(awk -v a="$gone" -v b="$t_detach" 'BEGIN { printf "%.2f", a - b }')
note "appeared $in_appear s after the attach, gone $in_gone s after the detach (refresh 0.5 s)"
# One refresh, and a little for the sample to be taken and stamped (a
# rescan without the monitor would come only after 30 s). Measured with
# tests/timing-margins.sh, 20 runs under tests/alongside.sh (another
# iosched-top probing every disk, this one included, and a fio writer on
# another loop device): appeared at most 0.01 s, gone at most 0.50 s after.
awk -v d="$in_appear" 'BEGIN { exit !(d <= 0.9) }' || fail "appeared only after $in_appear s"
awk -v d="$in_gone" 'BEGIN { exit !(d <= 0.9) }' || fail "went only after $in_gone s"

added=$(jq -c --arg n "$N" --argjson t "$t0" '.events[] | select(.ts > $t and .type == "disk" and .disk == $n and .from == "absent" and .to == "present" and .ok)' \
	"$SCRATCH/out.json" | wc -l)
removed=$(jq -c --arg n "$N" --argjson t "$t0" '.events[] | select(.ts > $t and .type == "disk" and .disk == $n and .from == "present" and .to == "absent" and .ok)' \
	"$SCRATCH/out.json" | wc -l)
[ "$added" = 1 ] || fail "expected one 'disk added' event for $N, found $added"
[ "$removed" = 1 ] || fail "expected one 'disk removed' event for $N, found $removed"

# The text form says it too.
"$BIN" -b -d 0.5 -n 6 --no-probe > "$SCRATCH/out.txt" 2>&1 &
P=$!
sleep 1
attach_loop 16; L=$LOOP
N=$(basename "$L")
wait "$P"
grep -q "^event: $N disk added$" "$SCRATCH/out.txt" || fail "no 'event: $N disk added' line in batch text"
echo "PASS"
