#!/bin/bash
# The full-screen view, driven in tmux: the loop device this test attaches
# is on screen with its scheduler list, the clock ticks, the latency chart
# of the probe carries a labelled marker for the --set switch, R changes
# the pace, a resize to 40x10 and back keeps it alive and drawn, the help
# screen comes from the key table, and q exits 0.
# suite-budget: 10
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/tmux.sh"
tui_loop 64 fill
other_sched "$N"
ROW=$(sched_list_re "$N" "$ALT") # the list, ALT active
tmux_start "$BIN -d 0.5 --probe $N --probe-rate max --set $N=$ALT"
wait_for "^$N +loop" || fail "no row for $N"
wait_for "^$N .*$ROW" || fail "scheduler list of $N not shown"
wait_for "I/O pressure" || fail "no I/O pressure line"

c1=$(clock); sleep 1.3; c2=$(clock)
[ -n "$c1" ] && [ "$c1" != "$c2" ] || fail "clock does not tick ('$c1' then '$c2')"
note "clock $c1 -> $c2"

select_disk "$N"

# The chart: a p50/p99 legend, a log axis with a labelled decade, and the
# switch to ALT marked and labelled.
wait_for "$N probe: steady \(max\), device" || fail "probe line missing"
wait_for "[0-9]+(us|ms) [┤+]" || fail "no labelled log axis"
wait_for "(▶|>)$ALT" || fail "no labelled marker for the switch to $ALT"
keys R
wait_for "$N probe: paced \(20 Hz\), device" || fail "R did not change the pace to 20 Hz"

keys h
wait_for "select the next disk" || fail "help screen not shown"
# The help is longer than the screen: PgDn scrolls it.
for _ in 1 2 3; do screen | grep -qE "Ctrl-L +redraw" && break; keys NPage; sleep 0.2; done
wait_for "Ctrl-L +redraw" || fail "help lacks Ctrl-L"
keys x
wait_for "^DEVICE" || fail "help did not close"

T resize-window -t main -x 40 -y 10
sleep 1
small=$(screen)
# columns, not bytes: a cut line ends with a 3-byte "…" (wc -L in a UTF-8 locale counts columns)
[ "$(printf '%s\n' "$small" | LC_ALL=C.UTF-8 wc -L)" -le 40 ] ||
	fail "lines wider than 40 after resize"
printf '%s\n' "$small" | grep -q "^DEVICE" || fail "table header gone at 40x10: $small"
[ -e "$SCRATCH/rc" ] && fail "exited on resize"
T resize-window -t main -x 20 -y 5
sleep 0.6
[ -e "$SCRATCH/rc" ] && fail "exited at 20x5"
T resize-window -t main -x 120 -y 40
wait_for "^$N .*$ROW +[0-9]" || fail "row not redrawn at 120x40"

keys C-l
wait_for "^$N +loop" || fail "Ctrl-L lost the screen"

keys q
rc=$(wait_exit)
[ "$rc" = 0 ] || fail "exit status $rc after q"
echo "PASS"
