#!/bin/bash
# Settings asked to be put back, on SIGTERM: a batch run with --set
# --restore --enable-delayacct, stopped at a random moment (three times),
# leaves the disk on its scheduler and queue settings, kernel.task_delayacct as it was, and
# no probe temporary of its own in /var/tmp/iosched-top-UID.
# SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGXCPU, SIGVTALRM, SIGPROF, SIGPWR,
# SIGIO, SIGSTKFLT, the real-time signals (whose default action kills) and
# SIGTRAP or SIGSEGV sent by another process (no crash of the tool's own)
# too, sent once another scheduler (bfq where offered) and delay
# accounting are on: everything put back, then
# the tool dies by that signal (exit status 128+N). SIGINT then SIGALRM:
# the first signal ended the run, so it exits 0 as on SIGINT (not by
# SIGALRM), everything put back. Started with SIGHUP ignored (nohup):
# SIGHUP stays ignored.
# KILL_SEED=N repeats a run's delays (the seed is printed).
# suite-budget: 10
# suite-alone: it turns kernel.task_delayacct on and checks it is put back
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd losetup
setup_scratch
[ -w /proc/sys/kernel/task_delayacct ] || skip "kernel without delay accounting"

attach_loop 64; L=$LOOP
N=$(basename "$L")
DA=/proc/sys/kernel/task_delayacct
DA0=$(cat $DA)
# Put back only while a run of ours may have changed it (a test that fails
# with one running).
DA_OURS=0
on_exit '[ $DA_OURS = 1 ] && echo $DA0 > $DA'
P=""
on_exit '[ -n "$P" ] && kill -KILL $P 2>/dev/null; wait 2>/dev/null'
Q=/sys/block/$N/queue
echo mq-deadline > $Q/scheduler || fail "cannot set mq-deadline on $N"
settings() { queue_settings "$N"; }
BEFORE=$(settings)
other_sched "$N"
# The scheduler the runs set: not the one the disk is on.
S=$ALT
[ "$S" = mq-deadline ] && S=${ALT2:-none}

SEED=${KILL_SEED:-$RANDOM}
RANDOM=$SEED
note "seed $SEED (KILL_SEED=$SEED repeats these delays)"
# Not below 150 ms: before main() installs its handlers a SIGTERM has its
# default action (see test_kill_ab).

DA_OURS=1
for i in 1 2 3; do
	random_delay 150 1500
	"$BIN" -b --json -d 0.2 --disk "$N" --no-probe --set "$N=$S" --restore --enable-delayacct \
		> "$SCRATCH/out" 2> "$SCRATCH/err" &
	P=$!; pid=$P
	sleep "$d"
	kill -TERM "$P" 2>/dev/null
	wait "$P"; rc=$?; P=""
	what="batch run, SIGTERM at $d s"
	[ $rc -eq 0 ] || fail "$what: exit $rc: $(cat "$SCRATCH/err")"
	[ "$(settings)" = "$BEFORE" ] || fail "$what: settings $(settings), before $BEFORE"
	[ "$(cat $DA)" = "$DA0" ] || fail "$what: kernel.task_delayacct is $(cat $DA), was $DA0"
	! ls -A "/var/tmp/iosched-top-$(id -u)" 2>/dev/null | grep -q "\.$pid\.tmp$" || fail "$what: left a probe temporary"
	! grep -Eq "could not|still in the kernel" "$SCRATCH/err" || fail "$what: $(cat "$SCRATCH/err")"
	note "$what: mq-deadline and task_delayacct=$DA0 put back"
done

# Delay accounting off first, so that putting it back can be seen (it is
# put back to DA0 by the trap). The signals reach the tool with their
# default action (env --default-signal): a background job of a script
# would get SIGQUIT ignored, a terminal's Ctrl-\ does not.
echo 0 > $DA
for sig in QUIT USR1 USR2 ALRM XCPU VTALRM PROF PWR IO STKFLT RTMIN RTMAX TRAP SEGV; do
	env --default-signal="$sig" "$BIN" -b --json -d 0.2 --disk "$N" --no-probe --set "$N=$S" --restore \
		--enable-delayacct > "$SCRATCH/out" 2> "$SCRATCH/err" &
	P=$!; pid=$P
	for _ in $(seq 100); do [ "$(sched_of "$N")" = "$S" ] && [ "$(cat $DA)" = 1 ] && break; sleep 0.1; done
	[ "$(sched_of "$N")" = "$S" ] && [ "$(cat $DA)" = 1 ] ||
		fail "SIG$sig: the run did not set $S and delay accounting: $(cat "$SCRATCH/err")"
	kill -"$sig" "$P"
	wait "$P" 2>/dev/null; rc=$?; P="" # no "Quit" line from bash
	what="batch run, SIG$sig"
	[ $rc -eq $((128 + $(kill -l "$sig"))) ] || fail "$what: exit $rc, not 128+$(kill -l "$sig"): $(cat "$SCRATCH/err")"
	[ "$(settings)" = "$BEFORE" ] || fail "$what: settings $(settings), before $BEFORE"
	[ "$(cat $DA)" = 0 ] || fail "$what: kernel.task_delayacct is $(cat $DA), was 0"
	grep -q "restored 1 change(s)" "$SCRATCH/err" || fail "$what: no restore said: $(cat "$SCRATCH/err")"
	! ls -A "/var/tmp/iosched-top-$(id -u)" 2>/dev/null | grep -q "\.$pid\.tmp$" || fail "$what: left a probe temporary"
	note "$what: exit $rc, mq-deadline and task_delayacct=0 put back"
done
# SIGINT, then SIGALRM during the clean-up: SIGINT's exit
"$BIN" -b --json -d 0.2 --disk "$N" --no-probe --set "$N=$S" --restore > "$SCRATCH/out" 2> "$SCRATCH/err" &
P=$!
for _ in $(seq 100); do [ "$(sched_of "$N")" = "$S" ] && break; sleep 0.1; done
[ "$(sched_of "$N")" = "$S" ] || fail "SIGINT+SIGALRM: the run did not set $S: $(cat "$SCRATCH/err")"
kill -INT "$P"; kill -ALRM "$P"
wait "$P" 2>/dev/null; rc=$?; P=""
[ $rc -eq 0 ] || fail "SIGINT then SIGALRM: exit $rc, not 0 (the first signal, SIGINT, ended the run): $(cat "$SCRATCH/err")"
[ "$(settings)" = "$BEFORE" ] || fail "SIGINT then SIGALRM: settings $(settings), before $BEFORE"
note "SIGINT then SIGALRM: exit 0, mq-deadline put back"
# Started with SIGHUP ignored (nohup, a logout): it stays ignored; SIGTERM
# still ends the run and puts everything back.
(trap '' HUP; exec "$BIN" -b --json -d 0.2 --disk "$N" --no-probe --set "$N=$S" --restore) > "$SCRATCH/out" 2> "$SCRATCH/err" &
P=$!
for _ in $(seq 100); do [ "$(sched_of "$N")" = "$S" ] && break; sleep 0.1; done
[ "$(sched_of "$N")" = "$S" ] || fail "HUP ignored: the run did not set $S: $(cat "$SCRATCH/err")"
kill -HUP "$P"
sleep 1
kill -0 "$P" 2>/dev/null || fail "HUP ignored by the caller, yet the run ended on SIGHUP: $(cat "$SCRATCH/err")"
kill -TERM "$P"
wait "$P" 2>/dev/null; rc=$?; P=""
[ $rc -eq 0 ] && [ "$(settings)" = "$BEFORE" ] || fail "HUP ignored, then SIGTERM: exit $rc, settings $(settings)"
note "started with SIGHUP ignored: SIGHUP ignored, SIGTERM put everything back"
echo "$DA0" > $DA
DA_OURS=0
echo "PASS"
