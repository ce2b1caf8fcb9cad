#!/bin/bash
# The first minutes at 80x24, as root: the key bar shows A (A/B) and B
# (presentation) within the 80 columns, besides h, q and s; O on a loop
# device of this test's own (--no-probe: none is probed) probes it, and O again
# stops that probe (the probe line says why it is not probed again), as
# doc/screen.md asks when done. Where udev does not run, P then w says why
# it wrote nothing, and the event log (l) shows that reason whole, wrapped
# within its box, not cut at 80 columns. A's prompt keeps what is typed
# in view (the syntax in short), not cut off behind the words. The disk's
# details (Enter) wrap its iostat line where the box has rows to spare.
# The writers line takes a shorter form that fits, its figures whole.
# suite-budget: 25
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/tmux.sh"
tui_loop 512 mkfs.ext4 mount
# a file system for A's load to write into, as a user's disk has
mkfs.ext4 -q -E nodiscard "$L" || fail "mkfs failed"
mkdir "$SCRATCH/mnt"
mount_scratch "$L" "$SCRATCH/mnt"
TMUX_W=80 TMUX_H=24 tmux_start "$BIN -d 0.5 --disk $N --no-probe 2> $SCRATCH/stderr"
wait_for "^$N +" || fail "no row for $N"
bar=$(screen | tail -1)
for k in "h help" "q quit" "s sched" "A A/B" "B big"; do
	case $bar in *"$k"*) ;; *) fail "the key bar at 80 columns lacks '$k': $bar" ;; esac
done
wait_for "$N: not probed" || fail "$N is probed despite --no-probe"
# The writers line fits: a shorter form (no pids, no limits), not one cut
# in the middle of a word ("(dirty_rat").
writers=$(screen | grep -m1 "^dirtying\|^to disks")
[ -n "$writers" ] || fail "no writers line: $(screen | head -4)"
[ ${#writers} -lt 80 ] || case $writers in *")"|*" MB") ;; *) fail "the writers line is cut at 80 columns: '$writers'" ;; esac
case $writers in *"Dirty "*) ;; *) fail "the writers line lost the page cache's figures at 80 columns: '$writers'" ;; esac
keys O
wait_for "$N: probed from the next refresh" || fail "O did not say it probes $N"
wait_for "p50 [0-9.]+(us|ms)|reads/s [0-9]" 10 || fail "no probe figures for $N after O"
keys O
wait_for "$N: probe stopped" || fail "O again did not say it stopped the probe"
wait_for "$N: not probed" 5 || fail "the probe line does not say $N is not probed any more"
keys Enter
wait_for "disk details" || fail "Enter opened no disk details"
wait_for "aqu-sz [0-9.]+ +%util [0-9.]+" 5 || fail "the disk details cut the iostat line at 80 columns: $(screen | grep -A1 'r/s')"
keys Escape
keys A
wait_for "^A/B on $N \(SCHED,\.\.\. load=SIZE \| live\): [a-z,-]+ load=[0-9]+[KMG]_" ||
	fail "the A/B prompt hides what is typed at 80 columns: $(screen | tail -1)"
keys Escape
if [ ! -e /etc/udev ] || ! command -v udevadm > /dev/null; then
	keys P
	wait_for "udev does not run here" || fail "the udev panel does not say udev does not run here"
	keys w
	keys Escape
	keys l
	wait_for "a rule would do nothing" || fail "the event log lacks why w wrote nothing"
	wait_for "\(the panel says what does\)" 5 || fail "the event log cut the reason at 80 columns: $(screen | grep -A1 'not written')"
	keys Escape
fi
keys q
[ "$(wait_exit)" = 0 ] || fail "q did not exit 0: $(cat "$SCRATCH/stderr")"
echo "PASS"
