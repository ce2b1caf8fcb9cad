#!/bin/bash
# A hung disk: a loop device on a file in a FUSE filesystem that sleeps
# 30 s in every request (tests/lib/slowfs.py). The probe's first read never
# comes back while the test runs. The screen must stay live (the header
# clock advances), show the read in flight and growing, show a switch asked
# for on that disk as pending, and q must end the tool at once although
# both the read and the switch are still in the kernel: they are carried by
# child processes (iosched-reader, iosched-switch) that finish when the
# kernel lets go, here when the test stops the FUSE server.
# suite-binaries: plain san   it times what the user sees (the shipped build); the sanitizer build is the slower case for its bound
# suite-budget: 10
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/tmux.sh"
need_root
need_cmd tmux losetup
need_slowfs
setup_scratch

KIDS="" # the tool's child processes, found before q
# shellcheck disable=SC2086 # a list of pids
children() { running $KIDS; }

slow_loop 30 16; L=$SLOW
N=$(basename "$L")
# Killing the FUSE server fails the requests it holds: the children end
# (waited for here, before the device is let go).
on_exit "kill -9 $SLOWFS; for _ in \$(seq 100); do [ \"\$(children)\" = 0 ] && break; sleep 0.1; done"

tmux_start "$BIN -d 0.5 --disk $N 2> $SCRATCH/stderr"
wait_for "^in flight [0-9]+ ms" 5 || fail "the probe's read is not shown in flight"
a=$(screen | grep -oE "^in flight [0-9]+" | grep -oE "[0-9]+$")
c1=$(clock)
sleep 1.5
b=$(screen | grep -oE "^in flight [0-9]+" | grep -oE "[0-9]+$")
c2=$(clock)
[ -n "$a" ] && [ -n "$b" ] && [ "$b" -ge $((a + 1000)) ] || fail "in flight does not grow: $a ms, then $b ms"
[ "$c1" != "$c2" ] || fail "the header clock stood still ($c1) while the read hung"
note "in flight $a ms, 1.5 s later $b ms; clock $c1 -> $c2"

keys ']'
wait_for "^$N +loop +(yes +|no +)?none -> mq-deadline [0-9.]+s" 5 || fail "the switch is not shown as pending"
sleep 1
[ "$(sched_of "$N")" = none ] || fail "the switch went through on a hung disk?"

TOOL=$(pgrep -o -f -x "$BIN -d 0.5 --disk $N") || fail "cannot find the tool's pid"
KIDS=$(pgrep -P "$TOOL" | tr '\n' ' ')
t0=$(date +%s.%N)
keys q
rc=$(wait_exit 10)
t1=$(date +%s.%N)
took=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
note "q to exit: $took s (exit status $rc); still in the kernel: $(children) child process(es)"
[ "$rc" = 0 ] || fail "exit status $rc"
# Measured with tests/timing-margins.sh, 20 runs under tests/alongside.sh
# (another iosched-top and a fio writer on another loop device): at most
# 1.14 s. Before the reads and switches moved to child processes: 21-25 s.
awk -v t="$took" 'BEGIN { exit !(t <= 2.5) }' || fail "q took $took s: the exit waited for the hung disk"
grep -q "scheduler -> mq-deadline is still in the kernel" "$SCRATCH/stderr" ||
	fail "no word that the switch is still in the kernel: $(cat "$SCRATCH/stderr")"
[ "$(children)" = 2 ] || fail "expected the reader and the switch still in the kernel, found $(children)"
echo "PASS"
