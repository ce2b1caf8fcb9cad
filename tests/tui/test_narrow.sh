#!/bin/bash
# Narrow terminals (issue 19): at 80x24, 100x30 and 160x45 the disk table
# keeps DEVICE, SCHEDULER, p50, p99, %util, w/s, r/s and the process pane
# PID, WRITE/s, READ/s and COMMAND (never dropped, only shortened); a
# line too long for the screen (the status bar's key list) ends with the
# mark that it was cut; the help screen wraps to its column and cuts
# nothing. (Where a line may be cut is one function, util_cut_mark,
# unit-tested in test_parsers.)
# suite-budget: 10
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/tmux.sh"
tui_loop 64 fill
for geo in 80x24 100x30 160x45; do
	W=${geo%x*} H=${geo#*x}
	TMUX_W=$W TMUX_H=$H tmux_restart "LANG=C.UTF-8 $BIN -d 0.5 --disk $N --probe $N"
	wait_for "^$N " 10 || fail "$geo: no row for $N"
	wait_for "PID" 10 || fail "$geo: no process pane"
	sleep 1.5
	screen > "$SCRATCH/s.$geo"
	head=$(grep -m1 '^DEVICE' "$SCRATCH/s.$geo")
	for c in DEVICE SCHEDULER p50 p99 %util w/s r/s; do
		echo "$head" | grep -qw -- "$c" || fail "$geo: the disk table lost $c: $head"
	done
	phead=$(grep -m1 '^ *PID ' "$SCRATCH/s.$geo")
	for c in PID WRITE/s READ/s COMMAND; do
		echo "$phead" | grep -q -- "$c" || fail "$geo: the process pane lost $c: $phead"
	done
	# The status bar's key list (about 140 columns): where it is cut, it
	# ends with the mark, never in the middle of a word without it.
	last=$(tail -n 1 "$SCRATCH/s.$geo")
	if [ "$(printf '%s\n' "$last" | LC_ALL=C.UTF-8 wc -L)" -ge "$W" ]; then
		case $last in *…) ;; *) fail "$geo: the status line is cut without a mark: $last" ;; esac
	fi
	keys h
	wait_for "== Main screen" 5 || fail "$geo: no help"
	screen > "$SCRATCH/h.$geo"
	awk -v w="$W" 'length($0) >= w { print "help line " NR " fills the width: " $0; bad = 1 } END { exit bad }' \
		"$SCRATCH/h.$geo" || fail "$geo: the help is cut"
	keys x
	keys q
	[ "$(wait_exit 10)" = 0 ] || fail "$geo: exit not 0"
	note "$geo: $(echo "$head" | tr -s ' ' | cut -c1-100)"
done
echo "PASS"
