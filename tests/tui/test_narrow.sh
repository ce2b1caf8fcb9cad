#!/bin/bash
# Narrow terminals (issue 19): at 80x24, 100x30 and 160x45 the disk table
# keeps DEVICE, SCHEDULER, p50, p99, %util, w/s, r/s and the process pane
# PID, WRITE/s, READ/s and COMMAND (never dropped, only shortened); no
# text line that fills the width ends without the mark that it was cut
# (the chart's bar lines and the table's own columns excepted); the help
# screen wraps to one column and cuts nothing.
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/tmux.sh"
need_root
need_cmd tmux losetup
setup_scratch

attach_loop 64 fill; L=$LOOP
N=$(basename "$L")
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
	# A line as wide as the screen ends with the cut mark, unless it is a
	# chart line (block or dot characters, the time axis ending "now") or a
	# row of the disk table.
	awk -v w="$W" -v n="$N" 'length($0) >= w && $0 !~ /[█▁▂▃▄▅▆▇•]/ && $0 !~ "^(DEVICE|" n ") " && $0 !~ /(…|now)$/ {
		print "line " NR " cut without a mark: " $0; bad = 1 } END { exit bad }' "$SCRATCH/s.$geo" ||
		fail "$geo: a line is cut mid-word"
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
