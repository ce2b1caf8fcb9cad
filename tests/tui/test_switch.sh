#!/bin/bash
# Switching by keypress, in tmux on a loop device this test attaches:
# s then k makes sysfs read [kyber] within 2 s and the row shows kyber; ]
# and [ move round the disk's list; the picker's arrows; u walks back; t changes read_ahead_kb and
# u reverts it; l lists the events; P shows the rule; q exits 0 and reports
# what is left changed with a command that reverts it.
# suite-budget: 10
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/tmux.sh"
tui_loop 64 fill
ra0=$(cat "/sys/block/$N/queue/read_ahead_kb")
tmux_start "$BIN -d 0.5 --disk $N --probe $N 2> $SCRATCH/stderr"
wait_for "^$N +loop" || fail "no row for $N"

# expect_sched NAME: sysfs within 30 s, then the row within 2 s
expect_sched() {
	for _ in $(seq 300); do [ "$(sched_of "$N")" = "$1" ] && break; sleep 0.1; done # a switch drains the queue
	[ "$(sched_of "$N")" = "$1" ] || fail "sysfs has $(sched_of "$N"), wanted $1"
	wait_for "^$N .*\[$1\]" 2 || fail "row does not show [$1]"
}

# neighbour DIR: the scheduler next to the active one in the disk's list
# as it reads now (DIR 1: after it, -1: before it; round the ends), as ]
# and [ walk it. Its order is the kernel's: on some kernels "none" comes
# first, on others it is listed first only while active.
neighbour() {
	local -a l
	local i a=0
	read -r -a l < "/sys/block/$N/queue/scheduler"
	for i in "${!l[@]}"; do [[ ${l[i]} == \[*\] ]] && a=$i; done
	echo "${l[(a + $1 + ${#l[@]}) % ${#l[@]}]}" | tr -d '[]'
}
grep -qw kyber "/sys/block/$N/queue/scheduler" || fail "$N offers no kyber: this test picks it by its letter"

keys s
wait_for "$N scheduler" || fail "picker did not open"
wait_for "\* none +\(active\)" || fail "picker does not mark the active scheduler"
keys k
expect_sched kyber
wait_for "scheduler none -> kyber in [0-9.]+ ms" || fail "status line lacks the switch"
wait_for "^$N .*\[kyber\][a-z -]* +[0-9]+ms " || fail "SWITCH column lacks the duration"

NEXT=$(neighbour 1)
keys ']'
expect_sched "$NEXT"
keys '['
expect_sched kyber
# The picker's cursor starts on kyber: the arrow to a neighbour in its list.
PICK=$(neighbour -1) ARROW=Up
read -r -a l < "/sys/block/$N/queue/scheduler"
[[ ${l[0]} == \[kyber\] ]] && PICK=$(neighbour 1) ARROW=Down # first: nothing above it
keys s "$ARROW" Enter
expect_sched "$PICK"
keys s Escape              # cancel changes nothing
sleep 0.5
[ "$(sched_of "$N")" = "$PICK" ] || fail "Esc in the picker changed the scheduler"

keys u
expect_sched kyber
keys u
expect_sched "$NEXT"
keys u                     # one at a time: u undoes what the screen has taken in
expect_sched kyber
keys u
expect_sched none
keys u
wait_for "nothing to undo" || fail "undo past the start not refused"

# Tunables: read_ahead_kb is the second entry.
keys t
wait_for "$N tunables" || fail "tunables panel did not open"
wait_for "read_ahead_kb +$ra0" || fail "panel lacks read_ahead_kb $ra0"
keys Down Enter 5 1 2 Enter
for _ in $(seq 300); do [ "$(cat "/sys/block/$N/queue/read_ahead_kb")" = 512 ] && break; sleep 0.1; done
[ "$(cat "/sys/block/$N/queue/read_ahead_kb")" = 512 ] || fail "read_ahead_kb not set to 512"
wait_for "read_ahead_kb +512" || fail "panel does not show the new value"
# A bad value is refused in place, before anything is written.
keys Enter 9 9 9 9 9 9 9 9 9 9 9 Enter
wait_for "is not accepted; give a whole number from 0" || fail "bad value not refused in place"
[ "$(cat "/sys/block/$N/queue/read_ahead_kb")" = 512 ] || fail "a refused value changed read_ahead_kb"
keys u
for _ in $(seq 300); do [ "$(cat "/sys/block/$N/queue/read_ahead_kb")" = "$ra0" ] && break; sleep 0.1; done
[ "$(cat "/sys/block/$N/queue/read_ahead_kb")" = "$ra0" ] || fail "u did not revert read_ahead_kb"
keys Escape

keys l
wait_for "$N +scheduler none -> kyber in" || fail "log lacks the first switch"
wait_for "$N +read_ahead_kb 512 -> $ra0 in" || fail "log lacks the undo of read_ahead_kb"
keys Escape
keys P
wait_for "KERNEL==\"$N\", ATTR\{queue/scheduler\}=\"none\"" || fail "udev rule not shown"
wait_for "60-iosched-top.rules" || fail "udev panel lacks the file"
if [ ! -e /etc/udev ] || ! command -v udevadm > /dev/null; then
	# a rule would never be read here: the panel says what works instead,
	# and w writes nothing
	wait_for "udev does not run here" || fail "the udev panel does not say udev does not run here"
	keys w
	wait_for "not written: udev does not run here" || fail "w did not say why it wrote nothing"
	[ -e /etc/udev/rules.d/60-iosched-top.rules ] && fail "w wrote a rule where udev does not run"
	# the whole reason in the event log too (the status line cuts it at 80 columns)
	keys Escape
	keys l
	wait_for "$N +not written: udev does not run here, a rule would do nothing" || fail "the event log lacks why w wrote nothing"
fi
keys Escape

LAST=$(neighbour 1)
keys ']'
expect_sched "$LAST"
keys q
rc=$(wait_exit)
[ "$rc" = 0 ] || fail "exit $rc"
grep -q "$N scheduler: none -> $LAST" "$SCRATCH/stderr" || fail "exit report lacks the change: $(cat "$SCRATCH/stderr")"
cmd=$(sed -n "s/^to revert: \(sudo \)\{0,1\}sh -c '\(.*\)'$/\2/p" "$SCRATCH/stderr")
[ -n "$cmd" ] || fail "no revert command: $(cat "$SCRATCH/stderr")"
sh -c "$cmd" || fail "the revert command failed: $cmd"
[ "$(sched_of "$N")" = none ] || fail "the revert command did not revert"
echo "PASS"
