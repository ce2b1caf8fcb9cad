#!/bin/bash
# The process pane in tmux: its columns, the / filter, sorting (< > r), o,
# a, c (on a row in view, and on a filtered one), p; i changes a process's I/O priority (checked with ionice) and u
# undoes it; D turns delay accounting on, and q turns it back off.
# suite-alone: it turns kernel.task_delayacct on (a setting of the whole machine) and checks it is put back
# suite-budget: 10
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/tmux.sh"
need_root
need_cmd tmux ionice
setup_scratch

was=$(cat /proc/sys/kernel/task_delayacct)
on_exit "echo $was > /proc/sys/kernel/task_delayacct"
cp "$(command -v sleep)" "$SCRATCH/iosched-sleeper"
"$SCRATCH/iosched-sleeper" 300 &
SP=$!
on_exit "kill $SP"
# 180 wide: every column, THROTTLED, READ p50/p99, WRITE p50/p99 and DISK too (on a
# narrower screen W-CALLS/s and R-CALLS/s give way first).
TMUX_W=180 TMUX_H=50 tmux_start "$BIN -d 0.5 --no-probe 2> $SCRATCH/stderr"
wait_for "Processes \(all disks\)" || fail "no process pane"
wait_for "PID USER +PRIO +READ/s +WRITE/s +TO-DISK/s +R-CALLS/s +W-CALLS/s +IO-WAIT +AVG-WAIT +THROTTLED +READ p50/p99 +WRITE p50/p99 DISK +COMMAND" || fail "pane columns wrong"

# The filter matches command lines too, of rows never shown as well (the
# idle sleeper is far down the list): "/iosched-sl" is in its command
# line, and no part typed so far is in its name (the filter applies as it
# is typed: a row matched by name would be shown, and its line read).
keys / / i o s c h e d - s l Enter
wait_for "matching \"/iosched-sl\"" || fail "filter not shown"
wait_for "^ *$SP root .*iosched-sleeper" || fail "filtered row missing"
[ "$(screen | grep -c "^ *[0-9]\+ root ")" -eq 1 ] || fail "filter lets other rows through"

keys c
# The full path of the copy (the column may cut its end: match its
# start, as much as fits in the narrowest column: 30 characters).
wait_for "^ *$SP .* ${SCRATCH:0:30}" || fail "c does not show the command line"
keys c

# I/O priority: Tab to the pane, i, up to "idle", Enter.
keys Tab i
wait_for "I/O priority of $SP" || fail "priority picker did not open"
keys Up Up Up Up Enter
for _ in $(seq 300); do ionice -p "$SP" | grep -q idle && break; sleep 0.1; done
ionice -p "$SP" | grep -q idle || fail "ionice says $(ionice -p "$SP")"
wait_for "^ *$SP root +idle " || fail "PRIO column does not show idle"
keys u
for _ in $(seq 300); do ionice -p "$SP" | grep -q none && break; sleep 0.1; done
ionice -p "$SP" | grep -q none || fail "u did not restore the priority: $(ionice -p "$SP")"
keys l
# The pid in a column of its own (right-aligned after the empty device
# column), not where the device goes.
wait_for "[0-9:]{8} {10,}$SP ioprio iosched-sleeper none -> idle" || fail "log lacks the ioprio change, with the pid in its own column"
keys Escape

keys Escape /
keys Escape   # clears the filter
wait_for "[0-9]+ processes, sorted by WRITE/s, per second" || fail "filter not cleared"

# c on an idle process in view, no filter: its command line is read when
# its row is first shown (the filter above read every row's: this one
# starts after). Sorted by COMMAND its name (a digit first) comes before
# every other.
cp "$(command -v sleep)" "$SCRATCH/000-iosched-idle"
"$SCRATCH/000-iosched-idle" 300 &
IDLE=$!
on_exit "kill $IDLE"
sort_by() {
	for _ in $(seq 12); do
		screen | grep -q "sorted by $1" && return 0
		keys "$2"
		sleep 0.3
	done
	wait_for "sorted by $1"
}
sort_by COMMAND '>' || fail "> did not reach COMMAND"
wait_for "^ *$IDLE root .* 000-iosched-id" || fail "the idle process is not in view"
keys c
wait_for "^ *$IDLE .* ${SCRATCH:0:30}" || fail "c does not show an idle row's command line"
keys c
sort_by WRITE/s '<' || fail "< did not come back to WRITE/s"

keys '>'
wait_for "sorted by TO-DISK/s" || fail "> did not move the sort"
keys '<' '<'
wait_for "sorted by READ/s" || fail "< did not move the sort"
keys r
wait_for "sorted by READ/s \(reversed\)" || fail "r did not reverse"
keys o
wait_for "with I/O only" || fail "o not shown"
keys a
wait_for "totals since start" || fail "a not shown"
keys p
wait_for "[0-9]+ threads, sorted" 4 || fail "p did not switch to threads"

keys D
for _ in $(seq 300); do [ "$(cat /proc/sys/kernel/task_delayacct)" = 1 ] && break; sleep 0.1; done
[ "$(cat /proc/sys/kernel/task_delayacct)" = 1 ] || fail "D did not turn delay accounting on"
keys q
rc=$(wait_exit)
[ "$rc" = 0 ] || fail "exit $rc"
if [ "$was" = 0 ]; then
	[ "$(cat /proc/sys/kernel/task_delayacct)" = 0 ] || fail "delay accounting left on"
	grep -q "task_delayacct set back to 0" "$SCRATCH/stderr" || fail "no word on delay accounting: $(cat "$SCRATCH/stderr")"
fi
echo "PASS"
