#!/bin/bash
# The full screen's A on a disk whose filesystem has less room than the
# default load needs (twice 2 GiB): the prompt offers the largest load that
# fits (a power of two, at most half the free space), editable; the run
# uses it and says so, and the event log (l) shows the run's start, its end
# and each reader's verdict. A size typed in the prompt that does not fit
# is refused, not shrunk (as --load-size is on the command line, whose
# default shrinks the same way); with too little room for even the smallest load
# the refusal stays on screen, whole, until a key, and is in the event log.
# L (the load alone) picks its size the same way.
# suite-budget: 40
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/tmux.sh"
need_root
need_cmd tmux losetup mkfs.ext4 mount fallocate df
setup_scratch

ext4_loop 400
other_sched "$N"
# The text inside the refusal's box, its lines joined.
boxtext() { screen | sed -n 's/.*│ \(.*[^ ]\) *│.*/\1/p' | tr '\n' ' '; }
avail() { df -B1 --output=avail "$MNT" | tail -n 1 | tr -d ' '; }
# What the tool must pick: the largest power of two of MiB, from 64 MiB,
# at most half the free space (the default, 2 GiB, does not fit in 400 MB).
free=$(avail)
want=64
while [ $((want * 2 * 1024 * 1024)) -le $((free / 2)) ]; do want=$((want * 2)); done
[ $((want * 1024 * 1024)) -le $((free / 2)) ] || fail "the test's filesystem has too little room: $free bytes free"
note "$free bytes free on $MNT: the load should be $want MiB"

TMUX_W=200 TMUX_H=50 tmux_start "$BIN -d 0.5 --disk $N --probe $N --rounds 2 --dwell 1 --warmup 0 --fresh-reads 50 2> $SCRATCH/stderr"
wait_for "^$N +loop" || fail "no row for $N"

# The prompt offers the size that fits, editable: change it to one that
# does not fit and the run is refused (a size given is never shrunk).
keys A
wait_for "A/B on $N, variants .*: $AB_OFFER load=${want}M_" || fail "the prompt does not offer load=${want}M"
for _ in $(seq $((${#want} + 1))); do keys BSpace; done
keys 1 G Enter
wait_for "refused \(any key closes this\)" || fail "load=1G on $free bytes free was not refused in a box"
wait_for "below twice the load size \(1024 MiB\)" || fail "the refusal does not say why"
keys x
sleep 0.3
screen | grep -q "any key closes this" && fail "a key did not close the refusal"

keys A
wait_for "$AB_OFFER load=${want}M_" || fail "the prompt did not open again"
keys Enter
wait_for "A/B $N: phase" 5 || fail "the A/B did not start"
wait_for "A/B report" 60 || fail "no report after the run"
wait_for "load: write \(built in, $want MiB in $MNT\)" || fail "the report does not say the load's size"
keys Escape
for _ in $(seq 100); do [ "$(sched_of "$N")" = none ] && break; sleep 0.1; done
[ "$(sched_of "$N")" = none ] || fail "A/B left $N on $(sched_of "$N")"

sleep 1.2 # the next tick brings the events
keys l
wait_for "event log" || fail "the event log did not open"
wait_for "$N +A/B refused: load directory $MNT has [0-9]+ MiB free, below twice the load size" ||
	fail "the event log lacks the refused start"
wait_for "$N +A/B started: $AB_OFFER, 2 round\(s\) of 1 s, load write $want MiB \(the default, 2048 MiB, does not fit the free space\)" ||
	fail "the event log lacks the start, or that the load was made smaller"
wait_for "$N +A/B ended: 4 phase\(s\) measured; load write \(built in, $want MiB" || fail "the event log lacks the end"
for reader in steady fresh paced; do
	wait_for "$N +A/B verdict, $reader: (not decided|a trade-off|[^ ]+ better)" ||
		fail "the event log lacks the $reader reader's verdict"
done
keys Escape

# L, the load alone, shrinks its default the same way.
keys L
wait_for "load write of $want MiB started in $MNT" || fail "L did not start a load of $want MiB"
keys L
wait_for "load on $N stopped after" || fail "L did not stop the load"

# The command line's A/B shrinks the default the same way and its report
# says the size used; a --load-size given that does not fit is refused.
"$BIN" --ab "none,$ALT" --disk "$N" --rounds 1 --dwell 1 --warmup 0 --fresh-reads 50 --format json > "$SCRATCH/cli.json" ||
	fail "the command line's A/B did not run with the default load size"
jq -e --arg w "write (built in, $want MiB in $MNT)" '.load == $w' "$SCRATCH/cli.json" > /dev/null ||
	fail "the command line's report says load $(jq -r .load "$SCRATCH/cli.json"), not $want MiB"
out=$("$BIN" --ab "none,$ALT" --disk "$N" --load-size 1G 2>&1) && fail "--load-size 1G on $free bytes free ran"
echo "$out" | grep -qE "below twice the load size \(1024 MiB\): give --load-size [0-9]+M or less" ||
	fail "--load-size 1G refusal: $out"

# Too little room for even the smallest load (twice 64 MiB): refused
# before the prompt, kept on screen past the status line's few seconds.
fallocate -l $(($(avail) - 100 * 1024 * 1024)) "$MNT/fill" || fail "cannot fill $MNT"
keys A
wait_for "refused \(any key closes this\)" || fail "A on a full filesystem was not refused in a box"
wait_for "the load needs 128 MiB" || fail "the refusal does not say what the load needs"
boxtext | grep -q "free space there, give --load-dir on a filesystem of $N with more room, or --load none" ||
	fail "the refusal's cure is not shown whole: $(boxtext)"
sleep 9
screen | grep -q "refused (any key closes this)" || fail "the refusal went away without a key"
keys l
sleep 0.3
screen | grep -q "any key closes this" && fail "a key did not close the refusal"
sleep 1.2
keys l
wait_for "$N +A/B refused: load directory $MNT has [0-9]+ MiB free; the load needs 128 MiB" ||
	fail "the event log lacks the refusal"
keys Escape
keys L
wait_for "refused \(any key closes this\)" || fail "L on a full filesystem was not refused in a box"
keys Escape
rm -f "$MNT/fill"
[ "$(ls -A "$MNT" | grep -v lost+found)" = "" ] || fail "scratch files left in $MNT: $(ls -A "$MNT")"
keys q
rc=$(wait_exit 20)
[ "$rc" = 0 ] || fail "exit $rc: $(tail -n 20 "$SCRATCH/stderr")"
echo "PASS"
