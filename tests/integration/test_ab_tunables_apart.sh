#!/bin/bash
# An A/B variant's queue attribute stays its own: read_ahead_kb outlives a
# scheduler switch, so a variant that does not name it must run with the
# value from before the run, not the last variant's. Each phase records
# the value in force (a --startup command runs once in every phase, after
# the switch and the warm-up), and the run puts the value back at the end.
# suite-budget: 30
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd jq losetup
setup_scratch

attach_loop 256; N=$(basename "$LOOP")
ra=/sys/block/$N/queue/read_ahead_kb
base=$(cat "$ra")
tuned=$((base == 64 ? 32 : 64))
seen=$SCRATCH/seen
"$BIN" --ab "none,none:read_ahead_kb=$tuned,mq-deadline" --disk "$N" --rounds 2 --dwell 1 --warmup 0 --load none \
	--startup "cat $ra >> $seen" --startup-runs 1 --format json > "$SCRATCH/ab.json" 2> "$SCRATCH/ab.err" ||
	fail "A/B exited $?: $(cat "$SCRATCH/ab.err")"
mapfile -t phases < <(jq -r '.phases[].scheduler' "$SCRATCH/ab.json")
mapfile -t values < "$seen"
[ "${#phases[@]}" -eq 6 ] && [ "${#values[@]}" -eq 6 ] ||
	fail "expected 6 phases and 6 values: ${phases[*]} / ${values[*]}"
for i in "${!phases[@]}"; do
	want=$base
	[ "${phases[$i]}" = "none:read_ahead_kb=$tuned" ] && want=$tuned
	[ "${values[$i]}" = "$want" ] ||
		fail "phase $((i + 1)) (${phases[$i]}) ran with read_ahead_kb ${values[$i]}, not $want (order: ${phases[*]}; seen: ${values[*]})"
done
[ "$(cat "$ra")" = "$base" ] || fail "read_ahead_kb left at $(cat "$ra"), was $base"
[ "$(sched_of "$N")" = none ] || fail "disk left on $(sched_of "$N")"
note "phases: ${phases[*]}; read_ahead_kb: ${values[*]}"
echo "PASS"
