#!/bin/bash
# Exit records under a burst from two spawners: two shells each start 500
# short-lived dd writers at once (64 KiB each, O_DIRECT: written before
# they end, nothing left for writeback to show their rows again), under
# CPU load, while two instances of the tool run (two taskstats listeners).
# About 1,000 processes end within a refresh or two: a fixed table of 512
# exit rows a refresh dropped the rest, and their bytes, without a word.
# Over each instance's JSON lines:
#  - each shell's ended dd rows (exited, comm dd, ppid the shell) count its
#    500 and carry its 500 x 64 KiB within 10 %;
#  - writers.exit_records_lost is 0 on the last line; if the kernel did
#    drop records (its count is of every task on the machine, not only
#    these), the rows count no more than 1,000 and with the lost ones at
#    least 1,000.
# suite-budget: 45
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd jq dd
setup_scratch

N=500
each=65536
for t in a b; do
	"$BIN" $PROCS_ARGS --json -d 2 -n 40 --no-probe --procs 100000 > "$SCRATCH/$t.json" 2> "$SCRATCH/$t.err" &
	eval "TOOL_$t=$!"
	on_exit "kill $! 2>/dev/null"
done
# Both listening, and the tasks read the way asked for (the task walk
# starts at the third refresh).
want=$([ -n "${PROCS_FROM_PROC:-}" ] && echo proc || echo bpf)
for t in a b; do
	for _ in $(seq 100); do
		tail -n1 "$SCRATCH/$t.json" 2>/dev/null | jq -e --arg w "$want" '.writers.tasks_from == $w' > /dev/null 2>&1 && break
		sleep 0.1
	done
	tail -n1 "$SCRATCH/$t.json" | jq -e '.writers.exit_records' > /dev/null ||
		fail "instance $t: no exit records as root: $(tail -n1 "$SCRATCH/$t.json" | jq -c .writers)"
done

# CPU load: one busy loop per CPU, for the length of the burst.
LOAD=()
for _ in $(seq "$(nproc)"); do
	bash -c 'while :; do :; done' &
	LOAD+=($!)
	on_exit "kill $! 2>/dev/null"
done
mkdir "$SCRATCH/w1" "$SCRATCH/w2"
spawn='for i in $(seq '$N'); do dd if=/dev/zero of="$1/f$i" bs='$each' count=1 oflag=direct status=none & done; wait'
bash -c "$spawn" _ "$SCRATCH/w1" &
S1=$!
bash -c "$spawn" _ "$SCRATCH/w2" &
S2=$!
wait $S1 || fail "the first spawner failed"
wait $S2 || fail "the second spawner failed"
kill "${LOAD[@]}"
# the refresh the last ones ended in, and one more
sleep 4.5
for t in a b; do
	eval "tool=\$TOOL_$t"
	kill -INT "$tool"
	wait "$tool" || fail "instance $t exited $?: $(cat "$SCRATCH/$t.err")"
done

# Per instance and shell: the dd rows' count and bytes; per instance, the
# kernel's count of records it dropped.
declare -A COUNT BYTES
for t in a b; do
	out=$SCRATCH/$t.json
	for s in $S1 $S2; do
		COUNT[$t$s]=$(jq -s --argjson p "$s" '[.[] | .procs[] | select(.exited and .comm == "dd" and .ppid == $p) | .count] | add // 0' "$out")
		BYTES[$t$s]=$(jq -s --argjson p "$s" '[.[] | (.writers.walk_s // .interval_s) as $t | .procs[] | select(.exited and .comm == "dd" and .ppid == $p) | .write_Bps * $t] | add // 0' "$out")
		note "instance $t, shell $s: ${COUNT[$t$s]} dd ended ($N started), ${BYTES[$t$s]} bytes written ($((N * each)))"
	done
	lost=$(tail -n1 "$out" | jq '.writers.exit_records_lost')
	note "instance $t: exit_records_lost $lost, overflows $(tail -n1 "$out" | jq '.writers.exit_record_overflows')"
	counted=$((COUNT[$t$S1] + COUNT[$t$S2]))
	if [[ $lost =~ ^[1-9][0-9]*$ ]]; then
		[ "$counted" -le $((2 * N)) ] && [ $((counted + lost)) -ge $((2 * N)) ] ||
			fail "instance $t: $counted dd counted and $lost records lost do not make up $((2 * N))"
		continue
	fi
	for s in $S1 $S2; do
		[ "${COUNT[$t$s]}" -eq $N ] || fail "instance $t: shell $s's dd rows count ${COUNT[$t$s]}, not $N (exit_records_lost: $lost)"
		within "${BYTES[$t$s]}" $((N * each)) 10 ||
			fail "instance $t: shell $s's dd rows carry ${BYTES[$t$s]} bytes, not $((N * each)) within 10 %"
	done
	[ "$lost" = 0 ] || fail "instance $t: exit_records_lost is $lost, not a count"
done
tasks_from_is "$SCRATCH/a.json"
tasks_from_is "$SCRATCH/b.json"
echo "PASS"
