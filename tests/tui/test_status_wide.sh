#!/bin/bash
# A message wider than the status line is not lost: on a terminal too
# narrow for it (60 columns here; at 80 the long ones are a refusal's or
# an error's), the line ends in "[l: whole]" and the event log (l) has the
# message whole (its box wraps it), once. F on a disk without a probe
# says why nothing was started in 68 characters.
# suite-budget: 15
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/tmux.sh"
need_cmd tmux
setup_scratch

TMUX_W=60 TMUX_H=24 tmux_start "$BIN -d 0.5 --no-probe --read-only 2> $SCRATCH/stderr"
wait_for "^DEVICE" || fail "no disk table"
wait_for "not probed" || fail "the selected disk is probed despite --no-probe"
keys F
wait_for "\[l: whole\]$" || fail "the status line does not say the message goes on in the log"
line=$(screen | tail -1)
note "status line: $line"
[ ${#line} -le 60 ] || fail "the status line is ${#line} columns wide at 60"
keys l
wait_for "event log" || fail "l did not show the event log"
wait_for "has no running probe" || fail "the log lacks the message's beginning"
wait_for "reads what the probe reads" || fail "the log lacks the message's end (cut, not wrapped)"
n=$(screen | grep "│.*has no running probe" | grep -c .) # the box's lines, not the status line
[ "$n" -eq 1 ] || fail "the message is in the log $n times"
keys Escape q
[ "$(wait_exit)" = 0 ] || fail "q did not exit 0: $(cat "$SCRATCH/stderr")"
echo PASS
