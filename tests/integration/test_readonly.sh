#!/bin/bash
# Read-only guarantee: a loop device full of random data has the same
# SHA-256, and its "sectors written" counter in /proc/diskstats has not
# moved, after a session of probing, switching and A/B on it:
# - probing: JSON batch runs with the probe reading the device back to back
#   (device mode; the samples are counted, n > 0, so the probe did read the
#   device and a write from it would have shown);
# - switching: --set at start with --restore, and in the full screen (tmux)
#   with ] and u;
# - A/B: a scheduler and one with a tunable, the probe reading the device,
#   and the built-in write load running: with --load-dir, in a directory in
#   $SCRATCH, which is on another disk. Not --load none, which would leave
#   the load out of the session; not a filesystem on this device, since
#   mounting one writes to it (journal, superblock times) and the hash
#   would change for reasons that are not the tool's.
# The hashes are read with O_DIRECT: a direct write (the probe's kind of
# I/O) might not show through the page cache a buffered read may use.
# suite-budget: 30
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd jq losetup sha256sum tmux
setup_scratch
. "$(dirname "$0")/../lib/tmux.sh"

attach_loop 256 fill; L=$LOOP
N=$(basename "$L")
hash() { dd if="$L" bs=1M iflag=direct status=none | sha256sum | cut -d' ' -f1; }
written() { awk -v n="$N" '$3 == n { print $10 }' /proc/diskstats; }
ORIG=$(sched_of "$N")
other_sched "$N"
H0=$(hash); W0=$(written)
note "before: $H0, $W0 sectors written"

# Probing, with a switch at start that --restore puts back.
"$BIN" --json -d 0.5 -n 6 --disk "$N" --probe-rate max --set "$N=$ALT" --restore \
	> "$SCRATCH/p.json" 2> "$SCRATCH/p.err" || fail "probe run exited $?: $(cat "$SCRATCH/p.err")"
n=$(jq -s --arg n "$N" '[.[].disks[] | select(.name == $n) | .probe.n // 0] | add' "$SCRATCH/p.json")
mode=$(tail -n1 "$SCRATCH/p.json" | jq -r --arg n "$N" '.disks[] | select(.name == $n) | .probe.mode')
[ "$mode" = device ] || fail "the probe was in mode '$mode', not reading the device"
[ "${n:-0}" -gt 0 ] || fail "the probe counted no samples on $N"
[ "$(sched_of "$N")" = "$ORIG" ] || fail "--restore left $(sched_of "$N")"
note "probe: $n reads of $N in device mode, under $ALT (--set, put back)"

# Switching in the full screen, with the probe reading.
tmux_start "$BIN --disk $N --probe-rate max"
wait_for "$N" 10 || fail "the full screen did not show $N"
keys ']'
# u undoes what the screen has taken in: wait for the status line.
wait_for "scheduler $ORIG -> [a-z-]+ in [0-9.]+ ms" 10 || fail "] did not switch $N"
SW=$(sched_of "$N")
[ "$SW" != "$ORIG" ] || fail "] did not switch $N"
keys u
for _ in $(seq 300); do [ "$(sched_of "$N")" = "$ORIG" ] && break; sleep 0.1; done
[ "$(sched_of "$N")" = "$ORIG" ] || fail "u did not switch $N back"
keys q
rc=$(wait_exit 10)
[ "$rc" = 0 ] || fail "full screen exited $rc"
note "full screen: ] to $SW, u back to $ORIG"

# A/B, its load writing on another disk.
mkdir "$SCRATCH/load"
"$BIN" --ab "none,$ALT:$ALT_TUNE" --disk "$N" --rounds 1 --dwell 1 --warmup 0.2 --fresh-reads 50 --load write \
	--load-dir "$SCRATCH/load" --load-size 64M --format json > "$SCRATCH/ab.json" 2> "$SCRATCH/ab.err" ||
	fail "A/B exited $?: $(cat "$SCRATCH/ab.err")"
jq -e --arg d "$SCRATCH/load" --arg o "$ORIG" '.partial == false and .restored == $o and (.load | contains($d))
	and all(.summary[]; .n > 0)' "$SCRATCH/ab.json" > /dev/null ||
	fail "A/B report: $(jq -c '{partial, restored, load, n: [.summary[].n]}' "$SCRATCH/ab.json")"
[ -z "$(ls -A "$SCRATCH/load")" ] || fail "the load left $(ls -A "$SCRATCH/load")"
note "A/B: $(jq -r '[.summary[] | "\(.scheduler) n=\(.n)"] | join(", ")' "$SCRATCH/ab.json"); load: $(jq -r .load "$SCRATCH/ab.json")"

H1=$(hash); W1=$(written)
note "after:  $H1, $W1 sectors written"
[ "$W1" = "$W0" ] || fail "$N had $((W1 - W0)) sectors written during the session"
[ "$H1" = "$H0" ] || fail "$N changed: $H0 before, $H1 after"
echo "PASS"
