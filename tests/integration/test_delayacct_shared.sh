#!/bin/bash
# Two runs that both asked for delay accounting (--enable-delayacct) share
# it: A turns it on, B starts, A ends and leaves it on for B (B's JSON
# still says delayacct true, A says why it left it), B ends and puts back
# the 0 from before A. In the full screen beside a run that holds it, D
# (off) is refused with the holder's pid. A run killed with SIGKILL cannot
# put it back; the next run with --enable-delayacct finds the dead holder
# and, at its end, puts back the 0 from before the killed one.
# suite-alone: it turns kernel.task_delayacct on and off (a setting of the whole machine)
# suite-budget: 25
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/tmux.sh"
need_root
need_cmd jq losetup tmux
[ -w "$DA_FILE" ] || skip "kernel without delay accounting"
setup_scratch
da_held_elsewhere && fail "another run of the tool holds delay accounting now ($(ls $DA_RECORD)): this test needs it to itself"

was=$(cat "$DA_FILE")
on_exit "echo $was > $DA_FILE"
echo 0 > "$DA_FILE"
attach_loop 16; N=$(basename "$LOOP")
RUN=(-b --json -d 0.2 --no-probe --disk "$N" --enable-delayacct)
da() { cat "$DA_FILE"; }
# wait_da V: up to 10 s for kernel.task_delayacct to be V
wait_da() { for _ in $(seq 100); do [ "$(da)" = "$1" ] && return 0; sleep 0.1; done; return 1; }

"$BIN" "${RUN[@]}" > "$SCRATCH/a.json" 2> "$SCRATCH/a.err" & A=$!
wait_da 1 || fail "run A did not turn delay accounting on: $(cat "$SCRATCH/a.err")"
"$BIN" "${RUN[@]}" > "$SCRATCH/b.json" 2> "$SCRATCH/b.err" & B=$!
for _ in $(seq 100); do [ -e "$DA_RECORD/task_delayacct.holder.$B" ] && break; sleep 0.1; done
[ -e "$DA_RECORD/task_delayacct.holder.$B" ] || fail "run B holds nothing: $(ls -l $DA_RECORD 2>&1)"
kill -TERM "$A"; wait "$A" || fail "run A exited $?: $(cat "$SCRATCH/a.err")"
[ "$(da)" = 1 ] || fail "run A's end turned delay accounting off under run B"
grep -q "task_delayacct left as it is: another iosched-top run (pid $B) uses it" "$SCRATCH/a.err" ||
	fail "run A does not say why it left it: $(cat "$SCRATCH/a.err")"
lines=$(wc -l < "$SCRATCH/b.json")
for _ in $(seq 300); do [ "$(wc -l < "$SCRATCH/b.json")" -gt $((lines + 1)) ] && break; sleep 0.1; done
tail -n1 "$SCRATCH/b.json" | jq -e '.writers.delayacct == true' > /dev/null ||
	fail "run B's IO-WAIT went off after A ended: $(tail -n1 "$SCRATCH/b.json" | jq -c .writers)"
note "A ended: $(grep task_delayacct "$SCRATCH/a.err")"

# The full screen beside B: D (off) is refused, naming B.
tmux_start "$BIN -d 0.5 --no-probe --disk $N 2> $SCRATCH/tui.err"
wait_for "^$N +loop" || fail "the full screen did not start"
keys D
wait_for "left on: another iosched-top run \(pid $B\) uses it" || fail "D did not refuse to turn it off under B"
[ "$(da)" = 1 ] || fail "D turned delay accounting off under run B"
keys q
wait_exit > /dev/null

kill -TERM "$B"; wait "$B" || fail "run B exited $?: $(cat "$SCRATCH/b.err")"
[ "$(da)" = 0 ] || fail "the last run's end left delay accounting at $(da), not the 0 from before the first"
grep -q "task_delayacct set back to 0, as it was" "$SCRATCH/b.err" || fail "run B does not say so: $(cat "$SCRATCH/b.err")"
[ ! -e "$DA_RECORD/task_delayacct.orig" ] || fail "the last run left the record: $(ls $DA_RECORD)"
note "B ended: $(grep task_delayacct "$SCRATCH/b.err")"

# SIGKILL: nothing can run; the next holder puts the 0 back at its end.
"$BIN" "${RUN[@]}" > /dev/null 2> "$SCRATCH/k.err" & K=$!
wait_da 1 || fail "the run to kill did not turn delay accounting on: $(cat "$SCRATCH/k.err")"
kill -KILL "$K"; wait "$K" 2>/dev/null
[ "$(da)" = 1 ] || fail "after SIGKILL delay accounting is $(da)"
"$BIN" "${RUN[@]}" -n 3 > /dev/null 2> "$SCRATCH/c.err" || fail "the run after the killed one exited $?: $(cat "$SCRATCH/c.err")"
[ "$(da)" = 0 ] || fail "the run after a killed one left delay accounting at $(da), not the 0 from before"
grep -q "task_delayacct set back to 0, as it was" "$SCRATCH/c.err" || fail "it does not say so: $(cat "$SCRATCH/c.err")"
[ -z "$(ls -A "$DA_RECORD" 2>/dev/null | grep task_delayacct)" ] || fail "the killed run's record was left: $(ls $DA_RECORD)"
note "after SIGKILL: the next run put back 0"
echo "PASS"
