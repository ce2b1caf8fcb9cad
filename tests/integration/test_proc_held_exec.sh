#!/bin/bash
# A process held in execve does not freeze the monitor. Any user with FUSE
# can hold their own process inside an exec (a file of theirs opened with
# O_CLOEXEC whose flush they never answer: tests/lib/heldfs.py); until
# then reads of its /proc/PID/stat and io wait, and a plain read() never
# returns (ps and pgrep hang too). The tool reads /proc's files of tasks
# (--no-bpf: every task through /proc) in text and JSON, gives up on that
# one within its patience, says which pid's files do not answer, and
# exits on time; once the exec is let go it reads that task again.
# suite-alone: while the process is held, anything on the machine that reads its /proc files (ps, pgrep) waits
# suite-budget: 40
. "$(dirname "$0")/../lib/common.sh"
need_root
need_slowfs
setup_scratch

MNT=$SCRATCH/mnt FLAGS=$SCRATCH/flags
mkdir -p "$MNT" "$FLAGS"
/usr/bin/python3 "$TOP/tests/lib/heldfs.py" "$MNT" "$FLAGS" 2> "$SCRATCH/fs.log" &
FS=$!
# let it go first (a held flush keeps the mount busy), then unmount
on_exit "touch '$FLAGS/go'; kill -9 $FS; fusermount -u '$MNT' || umount -l '$MNT'"
for _ in $(seq 100); do mountpoint -q "$MNT" && break; sleep 0.05; done
mountpoint -q "$MNT" || fail "heldfs did not mount: $(cat "$SCRATCH/fs.log")"

# os.open makes descriptors close-on-exec
/usr/bin/python3 -c 'import os, sys; os.open(sys.argv[1], os.O_RDONLY); os.execv("/bin/true", ["true"])' "$MNT/held" &
HELD=$!
for _ in $(seq 100); do grep -q held "$SCRATCH/fs.log" && break; sleep 0.05; done
grep -q held "$SCRATCH/fs.log" || fail "the exec was not held: $(cat "$SCRATCH/fs.log")"
# held for sure: its stat does not answer (a reader of our own, ended by
# SIGTERM: with no handler a fatal signal ends that wait)
timeout 1 cat "/proc/$HELD/stat" > /dev/null 2>&1 && fail "pid $HELD's stat answered: not held"

# The sanitized build's leak check stops every thread with ptrace at exit,
# and a thread in the killable wait of a read given up on never stops: its
# exit would hang there (the shipped build's exit ends such a thread).
# While the process is held, that check is off; the rest of ASan is on.
held_asan=${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}detect_leaks=0
t0=$(date +%s.%N)
ASAN_OPTIONS=$held_asan timeout -s KILL 20 "$BIN" -b -n 3 -d 0.5 --no-probe --no-bpf > "$SCRATCH/out.txt" 2> "$SCRATCH/err.txt"
rc=$?
t1=$(date +%s.%N)
[ $rc -eq 0 ] || fail "the text run exited $rc (137: it hung and was killed): $(tail -3 "$SCRATCH/err.txt")"
# (others held on the machine are named too: the first three)
grep -qE "do not answer \(pid ([0-9]+, ){0,2}$HELD[,:]" "$SCRATCH/out.txt" ||
	fail "no word of pid $HELD's files: $(grep -o 'I/O wait.*' "$SCRATCH/out.txt" | head -3)"
# three refreshes 0.5 s apart and one wait of patience (the task is then
# skipped): well under 20 s
awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b - a < 8) }' || fail "the text run took $(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}') s"

ASAN_OPTIONS=$held_asan timeout -s KILL 20 "$BIN" --json -n 2 -d 0.5 --no-probe --no-bpf > "$SCRATCH/out.json" 2> "$SCRATCH/err.txt" ||
	fail "the JSON run exited $?: $(tail -3 "$SCRATCH/err.txt")"
[ "$(wc -l < "$SCRATCH/out.json")" -eq 2 ] || fail "the JSON run wrote $(wc -l < "$SCRATCH/out.json") lines, not 2"

# let go: the exec ends, and its files answer again
touch "$FLAGS/go"
wait $HELD || fail "the held process exited $?"
timeout -s KILL 20 "$BIN" -b -n 2 -d 0.5 --no-probe --no-bpf > "$SCRATCH/out2.txt" 2>&1 || fail "the run after exited $?"
grep -q "do not answer" "$SCRATCH/out2.txt" && fail "still a task that does not answer after the exec was let go"
echo "PASS: a process held in execve (pid $HELD): text and JSON runs ended on time and named it; none after"
