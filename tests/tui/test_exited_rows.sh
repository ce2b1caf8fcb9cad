#!/bin/bash
# Processes that ended, in the full screen (issue 16): a loop of short dd
# writers shows as "[exited] dd xN" rows, one per refresh's batch (same
# command and parent folded, with a count), dimmed, and kept for a few
# refreshes; with the / filter on their name, nothing but their rows. The
# writers are a copy of dd named dd-rows: another test's dd processes
# (beside this one in the suite) must not be taken for them.
# suite-budget: 10
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/tmux.sh"
need_root
need_cmd tmux dd
setup_scratch

TMUX_W=160 TMUX_H=50 tmux_start "$BIN -d 0.5 --no-probe 2> $SCRATCH/stderr"
wait_for "Processes \(all disks\)" || fail "no process pane"
# The header tells what processes ask for from what disks do.
wait_for "^dirtying [0-9.]+ MB/s.* \| to disks [0-9.]+ MB/s" || fail "no dirtying / to disks line"
cp "$(command -v dd)" "$SCRATCH/dd-rows"
keys / d d - r o w s Enter
wait_for "matching \"dd-rows\"" || fail "filter not shown"
mkdir "$SCRATCH/w"
bash -c 'for i in $(seq 100); do "$2" if=/dev/zero of="$1/f$i" bs=256k count=1 conv=fsync status=none; rm -f "$1/f$i"; sleep 0.02; done' _ "$SCRATCH/w" "$SCRATCH/dd-rows" &
LOOP_PID=$!
on_exit "kill $LOOP_PID"
wait_for "\[exited\] dd-rows x[0-9]+" 10 || fail "no folded row of ended dd processes"
# Dimmed: the row is drawn with the dim attribute (SGR 2).
T capture-pane -p -e -t main | grep -E '\[exited\] dd-rows x[0-9]+' | grep -q $'\e\[2m' || fail "the ended rows are not dimmed"
wait $LOOP_PID
# The last batch stays a few refreshes after the loop is over, then goes.
wait_for "\[exited\] dd-rows" 1 || fail "the ended rows went at once"
for _ in $(seq 40); do screen | grep -q "\[exited\] dd-rows" || break; sleep 0.1; done
screen | grep -q "\[exited\] dd-rows" && fail "ended rows still shown 4 s after the last dd"
keys q
[ "$(wait_exit)" = 0 ] || fail "exit not 0: $(cat "$SCRATCH/stderr")"
echo "PASS"
