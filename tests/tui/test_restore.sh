#!/bin/bash
# --restore: changes made in a session (a scheduler by key, a tunable in
# the panel, a --set at start) are all put back when the session is ended
# by SIGTERM, or by Ctrl-\ (which also gives the terminal back); in batch
# mode, by the end of the run, with the files of a scheduler the user had
# tuned that a switch away dropped.
# suite-budget: 10
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/tmux.sh"
tui_loop 16
attach_loop 16; L2=$LOOP
N2=$(basename "$L2")
ra0=$(cat "/sys/block/$N/queue/read_ahead_kb")
# The user's own nr_requests: a switch makes the kernel reset it to the
# new scheduler's default; the restore must give this one back.
nr0=$(cat "/sys/block/$N/queue/nr_requests")
CLEANUPS+=("echo $nr0 > /sys/block/$N/queue/nr_requests")
echo 64 > "/sys/block/$N/queue/nr_requests"
other_sched "$N" # ALT: bfq where offered, else kyber

tmux_start "$BIN -d 0.5 --disk $N,$N2 --no-probe --restore --set $N2=mq-deadline 2> $SCRATCH/stderr"
wait_for "^$N +loop" || fail "no row for $N"
[ "$(sched_of "$N2")" = mq-deadline ] || fail "--set not applied"
keys s "${ALT:0:1}" # the picker's first letter
for _ in $(seq 100); do [ "$(sched_of "$N")" = "$ALT" ] && break; sleep 0.1; done # a switch drains the queue: seconds under load
[ "$(sched_of "$N")" = "$ALT" ] || fail "switch to $ALT failed (the disk is on $(sched_of "$N")): $(screen | tail -4)"
keys t Down Enter 2 5 6 Enter Escape
for _ in $(seq 100); do [ "$(cat "/sys/block/$N/queue/read_ahead_kb")" = 256 ] && break; sleep 0.1; done
[ "$(cat "/sys/block/$N/queue/read_ahead_kb")" = 256 ] || fail "read_ahead_kb not set"

pid=$(pgrep -f "^$BIN -d 0.5 --disk $N,$N2" | head -n1)
[ -n "$pid" ] || fail "cannot find the process"
kill -TERM "$pid"
rc=$(wait_exit)
[ "$rc" = 0 ] || fail "exit $rc after SIGTERM: $(cat "$SCRATCH/stderr")"
[ "$(sched_of "$N")" = none ] || fail "$N scheduler not restored: $(sched_of "$N")"
[ "$(sched_of "$N2")" = none ] || fail "$N2 (--set) not restored: $(sched_of "$N2")"
[ "$(cat "/sys/block/$N/queue/read_ahead_kb")" = "$ra0" ] || fail "read_ahead_kb not restored"
[ "$(cat "/sys/block/$N/queue/nr_requests")" = 64 ] ||
	fail "nr_requests, reset by the switch, not restored: $(cat "/sys/block/$N/queue/nr_requests")"
grep -Eq "restored 3 change\(s\) and [1-9][0-9]* queue setting\(s\) a switch had reset, all settings are as they were" \
	"$SCRATCH/stderr" || fail "report: $(cat "$SCRATCH/stderr")"

# Ctrl-\ (SIGQUIT): the same clean-up, the terminal out of the alternate
# screen, then the tool dies by SIGQUIT (status 128+3). The pane's shell
# catches SIGQUIT (so it lives to write the status); the tool gets it with
# its default action, as from a login shell.
tmux_restart "trap : QUIT; $BIN -d 0.5 --disk $N --no-probe --restore --set $N=$ALT 2> $SCRATCH/quit.err"
wait_for "^$N +loop" || fail "Ctrl-\\: no row for $N"
[ "$(sched_of "$N")" = "$ALT" ] || fail "Ctrl-\\: --set not applied"
[ "$(T display -p -t main '#{alternate_on}')" = 1 ] || fail "Ctrl-\\: the full screen is not on the alternate screen"
keys 'C-\'
rc=$(wait_exit 10)
[ "$rc" = $((128 + $(kill -l QUIT))) ] || fail "Ctrl-\\: exit $rc, not 128+$(kill -l QUIT): $(cat "$SCRATCH/quit.err")"
[ "$(T display -p -t main '#{alternate_on}')" = 0 ] || fail "Ctrl-\\: left on the alternate screen"
[ "$(sched_of "$N")" = none ] || fail "Ctrl-\\: scheduler not restored: $(sched_of "$N")"
grep -q "restored 1 change(s)" "$SCRATCH/quit.err" || fail "Ctrl-\\: report: $(cat "$SCRATCH/quit.err")"
note "Ctrl-\\: exit $rc, terminal and scheduler back"

# Batch mode: a --set lasts the run and not a moment longer.
"$BIN" -b -n 2 -d 0.2 --disk "$N" --no-probe --set "$N=$ALT" --restore > "$SCRATCH/b.txt" 2> "$SCRATCH/b.err" ||
	fail "batch run failed: $(cat "$SCRATCH/b.err")"
grep -q "event: $N scheduler none -> $ALT" "$SCRATCH/b.txt" || fail "batch output lacks the event"
[ "$(sched_of "$N")" = none ] || fail "batch --restore left $(sched_of "$N")"

# A scheduler the user had tuned before the tool started: switching away
# drops its files (the kernel frees them, and the scheduler comes back
# with its defaults); the restore gives back the ones that differ. Two of
# ALT's own settings, off their defaults:
case $ALT in
bfq) S1=low_latency V1=0 S2=slice_idle V2=0 ;;
kyber) S1=read_lat_nsec V1=4000000 S2=write_lat_nsec V2=20000000 ;;
mq-deadline) S1=fifo_batch V1=8 S2=read_expire V2=250 ;;
esac
TO=mq-deadline
[ "$ALT" = mq-deadline ] && TO=none
echo "$ALT" > "/sys/block/$N/queue/scheduler"
Q=/sys/block/$N/queue/iosched
echo "$V1" > "$Q/$S1"
echo "$V2" > "$Q/$S2"
"$BIN" -b -n 2 -d 0.2 --disk "$N" --no-probe --set "$N=$TO" --restore > "$SCRATCH/c.txt" 2> "$SCRATCH/c.err" ||
	fail "batch run from $ALT failed: $(cat "$SCRATCH/c.err")"
grep -q "event: $N scheduler $ALT -> $TO" "$SCRATCH/c.txt" || fail "no switch to $TO: $(cat "$SCRATCH/c.txt")"
[ "$(sched_of "$N")" = "$ALT" ] || fail "batch --restore left $(sched_of "$N"), not $ALT"
[ "$(cat "$Q/$S1")" = "$V1" ] && [ "$(cat "$Q/$S2")" = "$V2" ] ||
	fail "$ALT's own settings not given back: $S1 $(cat "$Q/$S1"), $S2 $(cat "$Q/$S2")"
grep -q "and 2 scheduler setting(s) a switch had dropped, all settings are as they were" "$SCRATCH/c.err" ||
	fail "report: $(cat "$SCRATCH/c.err")"
echo "PASS"
