#!/bin/bash
# i on a process whose threads have I/O priorities of their own (one
# thread realtime 0, the rest none): one value set on every thread would
# lose the thread's, and the undo (u, q with --restore), which keeps one
# value, could not put it back. The process is left as it is, and the
# screen says why and how to set one thread. A process whose main thread
# has ended (pthread_exit: a zombie reading as none) is judged by the
# threads that run: i sets them, and u puts back their be/7.
# suite-budget: 15
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/tmux.sh"
need_root
need_cmd tmux ionice python3 cc
setup_scratch

cp /usr/bin/python3 "$SCRATCH/iosched-thr" # the interpreter itself (python3 on PATH may be a shim)
TIDFILE=$SCRATCH/tid "$SCRATCH/iosched-thr" -c '
import os, threading, time
t = threading.Thread(target=lambda: time.sleep(300), daemon=True)
t.start()
open(os.environ["TIDFILE"], "w").write(str(t.native_id))
time.sleep(300)' &
TP=$!
on_exit "kill $TP"
for _ in $(seq 300); do [ -s "$SCRATCH/tid" ] && break; sleep 0.1; done 2>/dev/null
TID=$(cat "$SCRATCH/tid" 2>/dev/null)
[ -n "$TID" ] || fail "the thread's id was not written"
ionice -c 1 -n 0 -p "$TID" || fail "cannot give thread $TID realtime 0"
ionice -p "$TP" | grep -q none || fail "the process is not at none: $(ionice -p "$TP")"

tmux_start "$BIN -d 0.5 --no-probe 2> $SCRATCH/stderr"
wait_for "Processes \(all disks\)" || fail "no process pane"
keys / i o s c h e d - t h r Enter
wait_for "^ *$TP root .*iosched-thr" || fail "filtered row missing"
keys Tab i
wait_for "I/O priority of $TP" || fail "priority picker did not open"
keys Up Up Up Up Enter
wait_for "is left as it is: its thread $TID has I/O priority rt/0" || fail "no word of the thread's own priority"
note "$(screen | grep -o "pid $TP.*is left as it is.*" | head -n 1)"
sleep 0.5
ionice -p "$TID" | grep -q "realtime: prio 0" || fail "the thread's realtime 0 was lost: $(ionice -p "$TID")"
ionice -p "$TP" | grep -q none || fail "the process was changed: $(ionice -p "$TP")"
keys q
[ "$(wait_exit)" = 0 ] || fail "exit status $(cat "$SCRATCH/rc")"

cat > "$SCRATCH/zl.c" <<'C'
#include <pthread.h>
#include <unistd.h>
static void *sleeper(void *a) { (void)a; sleep(300); return NULL; }
int main(void) { pthread_t t; pthread_create(&t, NULL, sleeper, NULL); pthread_exit(NULL); }
C
cc -pthread -o "$SCRATCH/iosched-zl" "$SCRATCH/zl.c" || fail "cannot build the test program"
ionice -c 2 -n 7 "$SCRATCH/iosched-zl" &
ZP=$!
on_exit "kill $ZP; wait $ZP 2>/dev/null"
ZT=""
for _ in $(seq 300); do ZT=$(ls "/proc/$ZP/task" 2>/dev/null | grep -vx "$ZP" | head -n 1); [ -n "$ZT" ] && break; sleep 0.1; done
[ -n "$ZT" ] || fail "the test program's thread did not start"
for _ in $(seq 300); do grep -q '^State:.Z' "/proc/$ZP/task/$ZP/status" && break; sleep 0.1; done
tmux_restart "$BIN -d 0.5 --no-probe 2> $SCRATCH/stderr2"
wait_for "Processes \(all disks\)" || fail "no process pane"
keys / i o s c h e d - z l Enter
wait_for "^ *$ZP root .*iosched-zl" || fail "filtered row of the program missing"
keys Tab i
wait_for "I/O priority of $ZP" || fail "priority picker did not open for the program"
keys Up Up Up Up Enter
for _ in $(seq 300); do ionice -p "$ZT" | grep -q idle && break; sleep 0.1; done
ionice -p "$ZT" | grep -q idle || fail "the running thread was not set: $(ionice -p "$ZT"); $(screen | tail -n 3)"
keys u
for _ in $(seq 300); do ionice -p "$ZT" | grep -q "best-effort: prio 7" && break; sleep 0.1; done
ionice -p "$ZT" | grep -q "best-effort: prio 7" || fail "u did not put back be/7: $(ionice -p "$ZT")"
keys q
[ "$(wait_exit)" = 0 ] || fail "exit status $(cat "$SCRATCH/rc")"
note "main thread ended: the running thread set to idle and put back to be/7"
kill "$ZP"; wait "$ZP" 2>/dev/null # reaped here: its ended main thread would stay a zombie in the test's cgroup
echo "PASS"
