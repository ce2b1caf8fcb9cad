#!/bin/bash
# Presentation mode at 80x24 on a loop device this test attaches: --big
# shows the scheduler and the probe's p50/p99 in large block letters with
# their values in a line of text too, labelled with the probe's profile,
# pace and reads per second, the chart, the top writers; B goes
# back to the normal view and again to presentation; the ASCII fallback
# (LANG=C) draws with '#'. Also a mouse click on a disk row selects it
# (an X10 mouse report typed into the pane, as a terminal sends it).
# suite-budget: 10
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/tmux.sh"
tui_loop 64 fill
echo kyber > "/sys/block/$N/queue/scheduler"
TMUX_W=80 TMUX_H=24 tmux_start "LANG=C.UTF-8 $BIN --big -d 0.5 --disk $N --probe $N --probe-rate max"
wait_for "^$N kyber \| " || fail "presentation mode not shown"
wait_for "^$N kyber \| steady probe \(max\), 10 s: p50 [0-9.]+[um]?s p99 [0-9.]+[um]?s, [0-9]+ reads/s$" 10 ||
	fail "no labelled p50/p99 line"
# Five rows of block letters ("kyber" and the latencies).
[ "$(screen | grep -c '█.*█.*█')" -ge 5 ] || fail "no large letters: $(screen)"
screen | grep -q "Processes (all disks)" || fail "no top writers pane: $(screen)"
keys B
wait_for "^DEVICE" || fail "B did not go back to the normal view"
keys B
wait_for "^$N kyber \| " || fail "B did not go to presentation mode again"
keys q
[ "$(wait_exit)" = 0 ] || fail "exit not 0"

# ASCII: '#' blocks.
TMUX_W=80 TMUX_H=24 tmux_restart "LANG=C LC_ALL=C $BIN --big -d 0.5 --disk $N --probe $N --probe-rate max"
wait_for "^$N kyber \| " || fail "presentation mode not shown in ASCII"
wait_for "###" || fail "no '#' letters without UTF-8"
screen | grep -q '█' && fail "block characters without UTF-8"
keys q; wait_exit > /dev/null

# A click on the second disk row selects it (zram0 or vda, not loop).
tmux_restart "$BIN -d 0.5 --no-probe"
wait_for "^DEVICE" || fail "no table"
second=$(screen | awk '/^DEVICE/ { getline; getline; print $1; exit }')
# X10 report: ESC [ M, then 32 + button (0: left press), 32 + 1 + x, 32 + 1 + y; row 5 is the second disk.
keys -l "$(printf '\033[M %s%s' "$(printf "\\$(printf '%03o' 34)")" "$(printf "\\$(printf '%03o' 38)")")"
wait_for "^$second: " 5 || fail "a click on the row of $second did not select it"
keys q
[ "$(wait_exit)" = 0 ] || fail "exit not 0"
echo "PASS"
