#!/bin/bash
# The first minute on a laptop's 80x24 terminal: who does the I/O must be
# visible. With 12 processes of this test's own running, the process pane
# shows at least 8 rows with their COMMAND; the chart gives way first (a
# one-line sparkline, labelled p99); C hides it and the pane grows; help
# is the first item of the footer at 80 and at 120 columns, and F1 opens
# it. A key nothing is bound to is named as printed on the key (Insert),
# never by curses' internal name (KEY_IC). A disk left unprobed says why,
# and O probes it.
# suite-budget: 15
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/tmux.sh"
tui_loop 64 fill
cp /bin/sleep "$SCRATCH/iosched-idler"
for _ in $(seq 12); do "$SCRATCH/iosched-idler" 300 & done
on_exit "pkill -f $SCRATCH/iosched-idler"

# footer_help: the last line starts with help, within 10 s (a status
# message stays 8 s, then the keys come back).
footer_help() {
	for _ in $(seq 100); do screen | tail -n1 | grep -q "^h help" && return 0; sleep 0.1; done
	return 1
}

# proc_rows: the process rows under the pane's header, up to the detail lines.
proc_rows() {
	screen | awk -v n="$N" '/^ +PID / { on = 1; next } on && $0 ~ "^" n ": " { on = 0 } on && /[a-z]/ { k++ } END { print k + 0 }'
}

TMUX_W=80 TMUX_H=24 tmux_start "$BIN -d 0.5 --disk $N --probe $N --probe-rate max"
wait_for "^$N " || fail "no row for $N at 80x24"
wait_for "^p99 " 8 || fail "no sparkline at 80x24"
# Only this test's 12: the rows counted are theirs.
keys / iosched-idler Enter
wait_for "iosched-idler" 5 || fail "the pane shows none of the 12 processes"
rows=$(proc_rows)
[ "$rows" -ge 8 ] || { screen; fail "$rows process rows at 80x24, wanted at least 8"; }
note "80x24: $rows process rows, the chart as a sparkline"
footer_help || fail "the footer does not start with help at 80 columns: $(screen | tail -n1)"

keys C
wait_for "chart hidden" 3 || fail "C did not say the chart is hidden"
sleep 0.6
more=$(proc_rows)
[ "$more" -gt "$rows" ] || fail "C did not give the chart's rows to the pane ($rows then $more)"
screen | grep -q "^p99 " && fail "the sparkline is still there after C"
keys C

keys IC
wait_for "Insert does nothing here" 3 || fail "an unbound key was not named as on the key"
screen | grep -q "KEY_" && fail "a message names curses' internals: $(screen | grep KEY_)"

T resize-window -t main -x 120 -y 40
sleep 1
wait_for "^$N +loop" || fail "no row for $N at 120x40"
footer_help || fail "the footer does not start with help at 120 columns: $(screen | tail -n1)"
rows=$(proc_rows)
[ "$rows" -ge 8 ] || fail "$rows process rows at 120x40"
note "120x40: $rows process rows"
keys F1
wait_for "select the next disk" 3 || fail "F1 did not open the help"
keys q
keys q
[ "$(wait_exit 5)" = 0 ] || fail "q did not exit 0"

# A disk not probed says why and how; O probes it from the screen.
tmux_restart "$BIN -d 0.5 --disk $N --no-probe"
wait_for "$N: not probed \(--no-probe \(O probes it\)\)" 5 || fail "the unprobed disk's line lacks its reason"
keys O
wait_for "$N: probed from the next refresh" 3 || fail "O did not say it probes $N"
wait_for "$N probe: paced" 5 || fail "O did not start a probe on $N"
echo "PASS"
