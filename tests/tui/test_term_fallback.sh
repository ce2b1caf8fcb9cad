#!/bin/bash
# Terminals that are not xterm: TERM=dumb (no cursor addressing) is
# refused with a message that names -b, exit 2; TERM=vt100 in a non-UTF-8
# locale (LANG=C) draws the table and the probe's chart in ASCII (no box
# or block characters), switches, and q exits 0.
# suite-budget: 10
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/tmux.sh"
need_root
need_cmd tmux losetup
setup_scratch

tmux_start "TERM=dumb $BIN --no-probe"
for _ in $(seq 300); do [ -s "$SCRATCH/rc" ] && break; sleep 0.1; done
[ "$(cat "$SCRATCH/rc" 2>/dev/null)" = 2 ] || fail "TERM=dumb: exit $(cat "$SCRATCH/rc" 2>/dev/null), not 2"
screen | tr -d '\n' | grep -q "cannot move the cursor: use -b" || fail "TERM=dumb: no message: $(screen)"

attach_loop 64 fill; L=$LOOP
N=$(basename "$L")
tmux_restart "TERM=vt100 LANG=C LC_ALL=C $BIN -d 0.5 --disk $N --probe $N --probe-rate max"
wait_for "^$N +loop" || fail "vt100: no row for $N"
wait_for "p50" || fail "vt100: no probe line"
sleep 2
screen | grep -q '[│┤█▁▂▃▄▅▆▇•▶┃]' && fail "vt100/LANG=C: non-ASCII characters on screen: $(screen | grep '[│┤█•]' | head -2)"
screen | grep -qE '^ *[0-9.]+[um]?s +[|+]' || fail "vt100: the chart's axis is not drawn in ASCII: $(screen)"
keys ']'
wait_for "$N scheduler none -> mq-deadline|none -> mq-deadline" 10 || fail "vt100: ] did not switch"
keys q
[ "$(wait_exit 10)" = 0 ] || fail "vt100: exit not 0"
echo "PASS"
