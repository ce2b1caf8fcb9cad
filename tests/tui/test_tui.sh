#!/bin/bash
# The full-screen view, driven in tmux: the loop device this test attaches
# is on screen with its scheduler list, the clock ticks, the latency chart
# of the probe carries a labelled marker for the --set switch, R changes
# the pace, a resize to 40x10 and back keeps it alive and drawn, the help
# screen comes from the key table, and q exits 0.
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd tmux losetup
setup_scratch

attach_loop 64 fill; L=$LOOP
N=$(basename "$L")
SOCK="iosched-tui-$$"
T() { tmux -L "$SOCK" "$@"; }
on_exit "tmux -L $SOCK kill-server"
screen() { T capture-pane -p -t main; }
# wait_for PATTERN: poll the screen for up to 5 s
wait_for() {
	for _ in $(seq 50); do screen | grep -qE -- "$1" && return 0; sleep 0.1; done
	echo "--- screen ---"; screen; echo "---"
	return 1
}

T -f /dev/null new-session -d -s main -x 120 -y 40 \
	"$BIN -d 0.5 --probe $N --probe-rate max --set $N=bfq; echo \$? > $SCRATCH/rc; sleep 30"
wait_for "^$N +loop" || fail "no row for $N"
wait_for "^$N .*none mq-deadline kyber \[bfq\]" || fail "scheduler list of $N not shown"
wait_for "I/O pressure" || fail "no I/O pressure line"

clock() { screen | head -n1 | grep -oE '[0-9]{2}:[0-9]{2}:[0-9]{2}'; }
c1=$(clock); sleep 1.3; c2=$(clock)
[ -n "$c1" ] && [ "$c1" != "$c2" ] || fail "clock does not tick ('$c1' then '$c2')"
note "clock $c1 -> $c2"

# Select the loop device: the detail line names it.
for _ in $(seq 20); do screen | tail -n 3 | grep -q "^$N: loop" && break; T send-keys -t main j; sleep 0.1; done
screen | tail -n 3 | grep -q "^$N: loop" || fail "cannot select $N with j"

# The chart: a p50/p99 legend, a log axis with a labelled decade, and the
# switch to bfq marked and labelled.
wait_for "$N probe device max" || fail "probe line missing"
wait_for "[0-9]+(us|ms) [┤+]" || fail "no labelled log axis"
wait_for "(▶|>)bfq" || fail "no labelled marker for the switch to bfq"
T send-keys -t main R
wait_for "$N probe device 20 Hz" || fail "R did not change the pace to 20 Hz"

T send-keys -t main h
wait_for "select the next disk" || fail "help screen not shown"
wait_for "Ctrl-L +redraw" || fail "help lacks Ctrl-L"
T send-keys -t main x
wait_for "^DEVICE" || fail "help did not close"

T resize-window -t main -x 40 -y 10
sleep 1
small=$(screen)
[ "$(printf '%s\n' "$small" | awk '{ if (length($0) > m) m = length($0) } END { print m }')" -le 40 ] ||
	fail "lines wider than 40 after resize"
printf '%s\n' "$small" | grep -q "^DEVICE" || fail "table header gone at 40x10: $small"
[ -e "$SCRATCH/rc" ] && fail "exited on resize"
T resize-window -t main -x 20 -y 5
sleep 0.6
[ -e "$SCRATCH/rc" ] && fail "exited at 20x5"
T resize-window -t main -x 120 -y 40
wait_for "^$N .*none mq-deadline kyber \[bfq\] +[0-9]" || fail "row not redrawn at 120x40"

T send-keys -t main C-l
wait_for "^$N +loop" || fail "Ctrl-L lost the screen"

T send-keys -t main q
for _ in $(seq 50); do [ -e "$SCRATCH/rc" ] && break; sleep 0.1; done
[ -e "$SCRATCH/rc" ] || fail "q did not exit"
[ "$(cat "$SCRATCH/rc")" = 0 ] || fail "exit status $(cat "$SCRATCH/rc") after q"
echo "PASS"
