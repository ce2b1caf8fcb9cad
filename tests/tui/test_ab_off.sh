#!/bin/bash
# A (the A/B) is not offered where it cannot run, and the screen says why:
# with --read-only the help's A line says read-only mode; as an
# unprivileged user (nobody) the footer says there is no A/B, the help's
# A line says it needs root, and A refuses without asking for variants.
# suite-budget: 15
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/tmux.sh"
tui_loop 16 setpriv
A_LINE="^ +A +A/B: compare schedulers on the selected disk \(asks which[^)]*\)"

TMUX_W=150 TMUX_H=60 tmux_start "$BIN --read-only -d 0.5 --disk $N --no-probe"
wait_for "^$N +loop" || fail "no row for $N (read-only)"
keys h
wait_for "$A_LINE \[off: read-only mode \(--read-only\)\]" || fail "the help does not say A is off in read-only mode"
keys q
sleep 0.3
keys A
wait_for "read-only mode \(--read-only\): keys that change the system are off" || fail "A was not refused in read-only mode"
screen | grep -q "variants" && fail "A asked for variants in read-only mode"
keys q
[ "$(wait_exit 10)" = 0 ] || fail "exit not 0 (read-only)"

chmod 755 "$SCRATCH"
cp "$BIN" "$SCRATCH/iosched-top" && chmod 755 "$SCRATCH/iosched-top"
TMUX_W=150 TMUX_H=60 tmux_restart "setpriv --reuid=65534 --regid=65534 --clear-groups $SCRATCH/iosched-top -d 0.5 --disk $N --no-probe"
wait_for "^$N +loop" || fail "no row for $N (nobody)"
wait_for "not root: no A/B, h says why" 12 || fail "the footer does not say why there is no A/B"
keys h
wait_for "$A_LINE \[off: needs root" && screen | grep -q "it switches schedulers and writes a" || fail "the help does not say A needs root"
keys q
sleep 0.3
keys A
wait_for "A/B is off: needs root" || fail "A was not refused as nobody"
screen | grep -q "variants" && fail "A asked nobody for variants"
[ "$(sched_of "$N")" = none ] || fail "the scheduler changed"
keys q
[ "$(wait_exit 10)" = 0 ] || fail "exit not 0 (nobody)"
echo "PASS"
