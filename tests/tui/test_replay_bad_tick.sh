#!/bin/bash
# A replay whose last tick is bad (a time out of range) stops on the tick
# before it and goes on drawing that one: its process rows, full command
# lines included (c), stay whole. A first version let the rows' command
# lines go with the bad tick while the pane still drew them (a read of
# freed memory, which the sanitizer pass of this test fails on). A bad
# tick's top disk, and a recording with no good tick, crash nothing.
# suite-budget: 10
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/tmux.sh"
need_cmd tmux
setup_scratch

REC=$SCRATCH/bad.rec
# The fixture's fourth line, its last tick, with a time past any clock.
sed -E '4s/"mono":[0-9.]+/"mono":1e300/' "$TOP/tests/fixtures/recording-v2.rec" > "$REC"
grep -q '"mono":1e300' "$REC" || fail "could not make the bad tick"
tmux_start "$BIN --no-config --replay $REC --replay-speed 4"
wait_for "a time out of range" 20 || fail "the bad tick was not reported: $(screen | tail -n 3)"
keys c
wait_for "/tmp/v2w/iosched-top -b" 10 || fail "the last good tick's command lines are not drawn"
sleep 1 # a few more draws of the same rows
screen | grep -q "/tmp/v2w/iosched-top -b" || fail "the command lines went"
keys q
rc=$(wait_exit 10)
[ "$rc" = 1 ] || fail "exit status $rc, not 1 (a replay that stopped at a bad line)"

# The same bad tick with a top disk far past its disks: refused whole, so
# the screen never indexes the last tick's disks with it (a crash, or a
# read past the array under the sanitizer); and a recording with no good
# tick at all: a message, not a crash on the empty first sample.
sed -E '4s/"top_disk":[-0-9]+/"top_disk":100000000/' "$REC" > "$SCRATCH/far.rec"
grep -q '"top_disk":100000000' "$SCRATCH/far.rec" || fail "could not plant the top disk"
head -n1 "$REC" > "$SCRATCH/head.rec"
tmux_restart "$BIN --no-config --replay $SCRATCH/far.rec --replay-speed 4"
wait_for "a time out of range" 20 || fail "far.rec: the bad tick was not reported: $(screen | tail -n 3)"
keys q
rc=$(wait_exit 10)
[ "$rc" = 1 ] || fail "far.rec: exit status $rc, not 1: $(screen | tail -n 3)"
# no tick at all: a replay that simply ends (0), not a crash (139)
tmux_restart "$BIN --no-config --replay $SCRATCH/head.rec"
sleep 2
keys q
rc=$(wait_exit 10)
[ "$rc" = 0 ] || fail "head.rec: exit status $rc, not 0: $(screen | tail -n 3)"
echo "PASS"
