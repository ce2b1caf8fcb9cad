#!/bin/bash
# Nothing lost, nothing left. The A/B runner with its write load, on a loop
# device with ext4 on it (so the load writes on the disk under test), is
# killed at random moments.
# - SIGTERM: the documented status (1 with a partial report; 0 with a whole
#   one when the run was over first), the disk back on its scheduler and
#   queue settings, nothing left on the filesystem, no probe temporary of
#   the run in /var/tmp/iosched-top-UID, kernel.task_delayacct as it was.
# - SIGQUIT in the other variant's phase: the same, then death by SIGQUIT (status 131).
# - SIGKILL: nothing can run, so the scheduler may stay changed (the man
#   page says so; the tool keeps no journal a later run could undo from)
#   and the load's directory stays; the next start removes it and says so.
# Also: the full screen started after a SIGKILL says in its event log what
# it removed; a run killed while writing a --probe-file leaves its
# temporary, which the next run with that file removes. (A batch run with
# --set --restore --enable-delayacct stopped by SIGTERM: test_kill_restore.)
# KILL_SEED=N repeats a run's delays (the seed is printed).
# suite-budget: 45
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd jq losetup mkfs.ext4 mount tmux
setup_scratch
. "$(dirname "$0")/../lib/tmux.sh"

attach_loop 512; L=$LOOP
N=$(basename "$L")
mkfs.ext4 -q -E nodiscard "$L" || fail "mkfs failed"
MNT=$SCRATCH/mnt
mount_scratch "$L" "$MNT"
DA=$DA_FILE
DA0=$(da_base)

# Registered last, so it runs first: no tool of ours outlives the test.
P=""
on_exit '[ -n "$P" ] && kill -KILL $P 2>/dev/null; wait 2>/dev/null'

Q=/sys/block/$N/queue
echo mq-deadline > $Q/scheduler || fail "cannot set mq-deadline on $N"
settings() { queue_settings "$N"; }
other_sched "$N" # ALT (bfq where offered) with ALT_TUNE, one of its settings
BEFORE=$(settings)
put_back() { echo mq-deadline > $Q/scheduler; echo "${BEFORE#*read_ahead_kb=}" | cut -d' ' -f1 > $Q/read_ahead_kb; }
leftovers() { ls -A "$MNT" | grep -v '^lost+found$'; }

SEED=${KILL_SEED:-$RANDOM}
RANDOM=$SEED
note "seed $SEED (KILL_SEED=$SEED repeats these delays)"
# Delays (random_delay) not below 150 ms: before main() installs its
# handlers (the dynamic loader, the sanitizers' start-up) a SIGTERM has its
# default action; the handlers come first thing in main.

# Two variants, one with a tunable of its scheduler and a queue setting:
# about 3 s in all, so a kill lands in any part of it. Fresh readers of
# 20 reads: with the default 2000 against the write load a run took 6 to
# 34 s, and the kills below would all land in its first part.
AB=(--ab "none,$ALT:$ALT_TUNE:read_ahead_kb=512" --disk "$N" --rounds 1 --dwell 1 --warmup 0.3
	--load write --load-size 64M --fresh-reads 20 --format json)

start() { "$BIN" "$@" > "$SCRATCH/out" 2> "$SCRATCH/err" & P=$!; }
finish() { wait "$P" 2>/dev/null; RC=$?; P=""; } # no "Killed" line from bash

# The state after a run that had the chance to clean up.
check_clean() {
	local what=$1 pid=$2
	[ "$(settings)" = "$BEFORE" ] || fail "$what: settings $(settings), before $BEFORE"
	[ -z "$(leftovers)" ] || fail "$what: left on the filesystem: $(leftovers)"
	! ls -A "/var/tmp/iosched-top-$(id -u)" 2>/dev/null | grep -q "\.$pid\.tmp$" || fail "$what: left a probe temporary"
	da_as_before "$DA0" || fail "$what: kernel.task_delayacct is $(cat $DA), was $DA0"
	! grep -Eq "could not|still in the kernel|--ab:" "$SCRATCH/err" || fail "$what: $(cat "$SCRATCH/err")"
}

t0=$(date +%s)
# One kill in each sixth of the run (the load starting, switches, warm-ups,
# measuring, the end), at a random moment within it.
for i in 0 1 2 3 4 5; do
	random_delay $((150 + i * 550)) $((700 + i * 550))
	start "${AB[@]}"; pid=$P
	sleep "$d"
	kill -TERM "$P" 2>/dev/null
	finish
	partial=$(jq -r .partial "$SCRATCH/out" 2>/dev/null)
	case "$RC/$partial" in
	1/true) ;;
	0/false) ;; # over before the signal came: a whole report
	*) fail "SIGTERM at $d s: exit $RC, partial=$partial: $(cat "$SCRATCH/err")" ;;
	esac
	check_clean "SIGTERM at $d s" "$pid"
	note "SIGTERM at $d s: exit $RC, $(jq '.phases | length' "$SCRATCH/out") phase(s) reported, all put back"
done

# SIGQUIT (Ctrl-\) in ALT's phase, with its setting in force and the
# load's directory there: the same clean-up and partial report, then the
# tool dies by SIGQUIT (status 128+3). It gets the signal with its default
# action (env --default-signal), as from a terminal: a script's background
# job would have it ignored.
env --default-signal=QUIT "$BIN" "${AB[@]}" > "$SCRATCH/out" 2> "$SCRATCH/err" & P=$!; pid=$P
in_alt() { [ "$(sched_of "$N")" = "$ALT" ] && [ "$(cat "$Q/iosched/$ALT_TUNE_FILE" 2>/dev/null)" = "${ALT_TUNE#*=}" ] && [ -n "$(leftovers)" ]; }
for _ in $(seq 200); do in_alt && break; sleep 0.05; done
in_alt || fail "SIGQUIT: the run never reached $ALT with $ALT_TUNE and its load: $(cat "$SCRATCH/err")"
kill -QUIT "$P"
finish
[ $RC -eq $((128 + $(kill -l QUIT))) ] || fail "SIGQUIT: exit $RC, not 128+$(kill -l QUIT): $(cat "$SCRATCH/err")"
[ "$(jq -r .partial "$SCRATCH/out")" = true ] || fail "SIGQUIT: no partial report: $(cat "$SCRATCH/out")"
check_clean "SIGQUIT in $ALT" "$pid"
note "SIGQUIT in $ALT: exit $RC, partial report, all put back"

for i in 1 2 3; do
	random_delay 300 2500
	start "${AB[@]}"; pid=$P
	sleep "$d"
	kill -KILL "$P" 2>/dev/null
	finish
	left=$(leftovers)
	note "SIGKILL at $d s (exit $RC): left $(settings), files: ${left:-none}"
	# What a killed run cannot put back is put back here; the next start
	# must deal with the files.
	put_back
	start "${AB[@]}"; pid=$P
	finish
	[ $RC -eq 0 ] || fail "the run after SIGKILL exited $RC: $(cat "$SCRATCH/err")"
	for f in $left; do
		grep -q "removed scratch directory $MNT/$f (.*), left by a run that was killed" "$SCRATCH/err" ||
			fail "the run after SIGKILL did not say it removed $f: $(cat "$SCRATCH/err")"
	done
	check_clean "the run after SIGKILL" "$pid"
	[ -n "$left" ] && note "next start: $(grep removed "$SCRATCH/err" | head -n1)"
done

# The full screen says it in its event log (it hides stderr). The kill
# lands once the scratch directory exists (a fixed delay could come
# before it under load), at a random moment after.
start "${AB[@]}"
for _ in $(seq 200); do [ -n "$(leftovers)" ] && break; sleep 0.05; done
random_delay 0 1000; sleep "$d"
kill -KILL "$P"; finish
put_back
left=$(leftovers)
[ -n "$left" ] || fail "SIGKILL $d s after the scratch directory was made left none"
# Wide enough for the whole path in the log line (scratch paths are long).
TMUX_W=220 tmux_start "$BIN --no-probe --disk $N"
wait_for "$N" 10 || fail "the full screen did not show $N"
keys l
wait_for "removed scratch directory $MNT/$left" 5 || fail "the event log does not say $left was removed"
keys Escape q
rc=$(wait_exit 10)
[ "$rc" = 0 ] || fail "full screen exited $rc"
[ -z "$(leftovers)" ] || fail "the full screen left $(leftovers)"
note "full screen after SIGKILL $d s into the load: the event log says $left was removed"

# A probe file being written when the run is killed: its temporary stays
# (the final name only ever holds a whole file); the next run removes it.
# The kill must land while the file is being written, not after: the run is
# frozen (SIGSTOP) as soon as its temporary has some data, the temporary is
# checked to be part-written, and only then is the run killed.
F=$MNT/user.probe
FULL=$((256 << 20))
start -b -d 1 -n 30 --disk "$N" --probe-file "$F" --probe-file-size 256M
tmp="" size=0
for _ in $(seq 500); do
	tmp=$(ls -A "$MNT" | grep '^\.user\.probe\.[0-9]*\.tmp$')
	size=$(stat -c %s "$MNT/$tmp" 2>/dev/null || echo 0)
	[ -n "$tmp" ] && [ "$size" -gt 0 ] && break
	sleep 0.01
done
kill -STOP "$P"
size=$(stat -c %s "$MNT/$tmp" 2>/dev/null || echo 0)
[ -n "$tmp" ] && [ "$size" -gt 0 ] && [ "$size" -lt $FULL ] && [ ! -e "$F" ] ||
	fail "the probe file writer was not caught mid-way (temporary '${tmp}' of $size bytes, final name $( [ -e "$F" ] && echo present || echo absent))"
note "probe file writer frozen at $((size >> 20)) MiB of 256, then killed"
kill -KILL "$P"; finish
[ -e "$MNT/$tmp" ] || fail "no temporary left by the killed probe file writer: $(leftovers)"
[ ! -e "$F" ] || fail "an incomplete probe file has the final name"
start -b -d 0.2 -n 1 --disk "$N" --probe-file "$F" --probe-file-size 256M
finish
[ $RC -eq 0 ] || fail "the run after the killed writer exited $RC: $(cat "$SCRATCH/err")"
grep -q "removed temporary file $MNT/$tmp" "$SCRATCH/err" || fail "$tmp not said removed: $(cat "$SCRATCH/err")"
# The run may have finished the file (it is kept: the user named it); a
# file of that name is always whole.
if [ -e "$F" ]; then
	[ "$(stat -c %s "$F")" -eq $((256 << 20)) ] || fail "$F is not whole: $(stat -c %s "$F") bytes"
	rm -f "$F"
fi
[ -z "$(leftovers)" ] || fail "left after the probe file run: $(leftovers)"
note "killed probe file writer: $(cat "$SCRATCH/err")"
note "$(($(date +%s) - t0)) s"
echo "PASS"
