#!/bin/bash
# A/B, load and cold start from the full screen, on a loop device with ext4
# this test makes: A asks for the variants (offering the first and last
# scheduler), runs while the screen keeps drawing, opens its report, w saves
# it as Markdown, the disk is back on its scheduler afterwards, the event
# log says which A/B phase each switch was for; Esc stops a
# run with a partial report; "live" in the prompt runs a live A/B (its own
# status, no load, Esc stops and restores); L starts and stops the built-in load (shown in
# the header, files removed); S times a cold start.
# suite-budget: 40
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/tmux.sh"
tui_loop 512 mkfs.ext4 mount
mkfs.ext4 -q -E nodiscard "$L" || fail "mkfs failed"
mkdir "$SCRATCH/mnt" "$SCRATCH/cwd"
mount_scratch "$L" "$SCRATCH/mnt"
clean() { [ "$(ls -A "$SCRATCH/mnt" | grep -v lost+found)" = "" ]; }
other_sched "$N"

tmux_start "cd $SCRATCH/cwd && $BIN -d 0.5 --disk $N --probe $N --rounds 2 --dwell 2 --warmup 0.5 --load-size 64M --startup true --startup-runs 1 2> $SCRATCH/stderr"
wait_for "^$N +loop" || fail "no row for $N"

keys A
wait_for "A/B on $N, variants .*: $AB_OFFER load=64M_" || fail "A/B prompt not shown (with the load size given)"
keys Enter
wait_for "A/B $N: phase [0-9] of 4" || fail "A/B status not shown"
c1=$(clock); sleep 1.2; c2=$(clock)
[ "$c1" != "$c2" ] || fail "the screen stopped during the A/B"
wait_for "A/B report" 40 || fail "no report after the run"
wait_for "^ *│? *none +all +[0-9]+" || fail "report lacks the none row"
wait_for "${AB_OFFER#*,} +all +[0-9]+" || fail "report lacks the ${AB_OFFER#*,} row"
keys w
# (the status line may show the undos finishing instead of "saved ...")
for _ in $(seq 300); do ls "$SCRATCH"/cwd/iosched-top-ab-"$N"-*.md > /dev/null 2>&1 && break; sleep 0.1; done
ls "$SCRATCH"/cwd/iosched-top-ab-"$N"-*.md > /dev/null || fail "report not saved as Markdown"
grep -q "^| variant (all phases) | round |" "$SCRATCH"/cwd/iosched-top-ab-"$N"-*.md || fail "saved report is not Markdown"
keys Escape
for _ in $(seq 100); do [ "$(sched_of "$N")" = none ] && break; sleep 0.1; done
if [ "$(sched_of "$N")" != none ]; then
	keys l; sleep 0.5; screen; fail "A/B left $N on $(sched_of "$N")"
fi
clean || fail "A/B left scratch files"
# the event log gives each of the run's switches its cause (its switch
# away from a scheduler in force, with none, looked like a stray change)
keys l
wait_for "in [0-9.]+ ms \(A/B phase [0-9]" || { screen; fail "the event log gives the A/B's switches no cause"; }
keys l

keys A Enter
wait_for "A/B $N: phase" || fail "second A/B did not start"
sleep 1.5
keys Escape
wait_for "PARTIAL" || fail "Esc did not stop the run with a partial report"
keys Escape
for _ in $(seq 300); do [ "$(sched_of "$N")" = none ] && break; sleep 0.1; done
[ "$(sched_of "$N")" = none ] || fail "a stopped A/B left $N on $(sched_of "$N")"

# live: the prompt's word "live" instead of load= runs the A/B on the
# user's own load (here none but the probe): its own status, no load files,
# Esc stops it with a partial report and the disk goes back.
keys A
wait_for "A/B on $N, variants .*: $AB_OFFER load=64M_" || fail "A/B prompt not shown again"
keys BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace
keys l i v e Enter
wait_for "live A/B on $N: round 1 \(at most 2\)" || fail "the live A/B did not start: $(screen | tail -n 3)"
sleep 1.5
ls -A "$SCRATCH/mnt" | grep -q iosched-top-load && fail "the live A/B wrote a load"
keys Escape
wait_for "PARTIAL" || fail "Esc did not stop the live run with a partial report"
keys Escape
for _ in $(seq 300); do [ "$(sched_of "$N")" = none ] && break; sleep 0.1; done
[ "$(sched_of "$N")" = none ] || fail "a stopped live A/B left $N on $(sched_of "$N")"

select_disk "$N"
keys L
wait_for "LOAD write on $N: [0-9.]+[KMG]? written" || fail "load not shown in the header"
sleep 1
ls -A "$SCRATCH/mnt" | grep -q iosched-top-load || fail "no load scratch directory"
keys L
wait_for "load on $N stopped after" || fail "load did not stop"
clean || fail "load files left"

keys S
wait_for "cold start of 'true': [0-9.]+ s" 10 || fail "cold start not timed"
keys q
rc=$(wait_exit 20)
[ "$rc" = 0 ] || fail "exit $rc: $(tail -n 40 "$SCRATCH/stderr")"
echo "PASS"
