#!/bin/bash
# --ab-live on a loop device this test makes (ext4), under a load of the
# test's own that stands for the user's: a writer (300 MiB files written
# and synced, again and again) and a reader (a 64 MiB file read direct in
# 16 KiB reads, again and again), both named dd.
#  - the JSON report is a live one: "mode" "live", a slot per variant in
#    every round, each round's order one of the two (the coin, --seed 7,
#    drew both orders at least once), each slot's washout, the user's
#    reads counted in every slot with dd the busiest reader, the probe's
#    own reads not among them (a run with the reader stopped counts far
#    fewer), verdicts for the user's reads, the probe and the writes, a
#    next step keyed "reads" and "writes";
#  - the tool writes nothing itself: write_bytes of it and its children
#    (sampled from /proc/PID/io until it exits) under 1 MiB;
#  - the disk is back on none after every run;
#  - while one live A/B runs, a second on the same disk is refused (exit
#    2, nothing switched), and a switch made outside the tool ends the
#    run at once (exit 1, the report's "stopped" says why, none back); a
#    lock nobody holds on the sysfs scheduler file stops neither, and the
#    run's own lock file is gone at its end;
#  - with --no-bpf the report says the user's reads are not measured and
#    the probe decides alone; SIGTERM gives a partial report and restores;
#  - too short a --max-time for a verdict is refused with what to give.
# suite-budget: 110
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd jq losetup mkfs.ext4 mount
setup_scratch

ext4_loop 1024
other_sched "$N"
V="none,$ALT"
M=$SCRATCH/mnt
dd if=/dev/urandom of="$M/data" bs=1M count=64 status=none conv=fsync || fail "cannot write $M/data"

# The user's load: a writer, and a reader (started by reader_on).
(while :; do dd if=/dev/zero of="$M/w" bs=1M count=300 conv=fsync status=none; rm -f "$M/w"; done) &
reader_on() { (while :; do dd if="$M/data" of=/dev/null bs=16k iflag=direct status=none; done) & READER=$!; }
reader_off() { kill "$READER"; pkill -f "if=$M/data of=/dev/null"; }
reader_on

# live_run OUT ARGS...: the tool in the background, its pid in PID, and
# its and its children's write_bytes written to OUT.wb until it exits.
tree() { local c; echo "$1"; for c in $(pgrep -P "$1"); do tree "$c"; done; }
live_run() {
	local out=$1
	shift
	"$BIN" --ab-live "$V" --disk "$N" --format json "$@" > "$out" 2> "$out.err" &
	PID=$!
	(while kill -0 "$PID" 2>/dev/null; do
		w=$(for p in $(tree "$PID"); do cat "/proc/$p/io" 2>/dev/null; done |
			awk '/^write_bytes:/ { w += $2; n++ } END { if (n) print w }')
		[ -n "$w" ] && echo "$w" > "$out.wb"
		sleep 0.2
	done) &
}

# 1. A whole run: 30 s holds 7 rounds of two 1.5 s slots after 0.5 s washouts.
live_run "$SCRATCH/a.json" --dwell 1.5 --warmup 0.5 --max-time 30 --seed 7
wait "$PID"
rc=$?
[ "$rc" = 0 ] || fail "--ab-live exited $rc: $(cat "$SCRATCH/a.json.err")"
J=$SCRATCH/a.json
jq -e . "$J" > /dev/null || fail "the report is not JSON: $(head -c 300 "$J")"
jq -e --arg n "$N" '.mode == "live" and .disk == $n and .partial == false and .restored == "none"
	and .stopped == null and .seed == 7 and (.yours | test("^every read of"))' "$J" > /dev/null ||
	fail "header wrong: $(jq -c 'del(.summary, .slots, .verdict, .readers, .noise, .next, .tradeoff)' "$J")"
rounds=$(jq '.rounds' "$J")
[ "$rounds" -ge 6 ] || fail "30 s held $rounds rounds"
jq -e --argjson r "$rounds" '(.slots | length) == 2 * $r and
	all(range(1; $r + 1) as $k | [.slots[] | select(.round == $k) | .scheduler] | sort | length == 2; .)
	and all(.slots[]; .washout_s == 0.5 and .your_reads > 0 and .top_readers[0].comm == "dd")
	and ([.slots[].your_reads] | add) > 600' "$J" > /dev/null ||
	fail "slots wrong: $(jq -c '[.slots[] | {scheduler, round, washout_s, your_reads, top: .top_readers[0].comm}]' "$J")"
# (a slot under the writer's first flush may hold few reads: 66 in one
# suite run, thousands alone; the reader must be in every slot, by name)
note "your reads per slot: $(jq -c '[.slots[].your_reads]' "$J")"
orders=$(jq -r '[.slots[] | .scheduler] | [range(0; length; 2) as $i | .[$i]] | unique | length' "$J")
[ "$orders" = 2 ] || fail "the coin drew one order for every round: $(jq -c '[.slots[].scheduler]' "$J")"
jq -e '[.verdict[].figure] == ["p50_us", "p99_us", "your_read_p50_us", "your_read_p99_us", "write_MBps"]
	and (.next | has("reads") and has("writes")) and (.readers | map(.profile) == ["paced", "yours", "writes"])' \
	"$J" > /dev/null || fail "verdicts or next step wrong: $(jq -c '{v: [.verdict[].figure], next, r: [.readers[].profile]}' "$J")"
[ "$(sched_of "$N")" = none ] || fail "the disk was left on $(sched_of "$N")"
[ -s "$J.wb" ] || fail "/proc/PID/io of the tool was never read"
[ "$(cat "$J.wb")" -lt $((1 << 20)) ] || fail "the tool wrote $(cat "$J.wb") bytes"
yours=$(jq '[.slots[].your_reads] | add / length' "$J")
note "$rounds rounds; your reads per slot $yours; write_bytes $(cat "$J.wb"); next: $(jq -c .next.why "$J")"

# 2. A second A/B on the same disk is refused; a switch from outside stops
# the first. The reader is stopped: what is left of "your reads" is the
# writer's, far fewer than the reader's (the probe's are not counted).
# A user holding a lock on the sysfs scheduler file (anyone may open it)
# stops nothing: the runs' lock is root's own.
reader_off
nobody flock "/sys/block/$N/queue/scheduler" sleep 60 &
LOCKER=$!
live_run "$SCRATCH/b.json" --dwell 1.5 --warmup 0.5 --max-time 30
sleep 3
"$BIN" --ab-live "$V" --disk "$N" --dwell 1.5 --warmup 0.5 --max-time 30 > "$SCRATCH/second.out" 2>&1
rc=$?
[ "$rc" = 2 ] && grep -q "is under an A/B of another run of the tool" "$SCRATCH/second.out" ||
	fail "a second A/B on $N was not refused (exit $rc): $(cat "$SCRATCH/second.out")"
sleep 3
other=mq-deadline
[ "$ALT" = mq-deadline ] && other=kyber
[ "$(sched_of "$N")" = "$other" ] && other=none
echo "$other" > "/sys/block/$N/queue/scheduler" || fail "cannot switch $N to $other"
t0=$(date +%s.%N)
wait "$PID"
rc=$?
took=$(echo "$(date +%s.%N) - $t0" | bc)
[ "$rc" = 1 ] || fail "a switch from outside: exit $rc, not 1: $(cat "$SCRATCH/b.json.err")"
grep -q "from outside the tool" "$SCRATCH/b.json.err" || fail "stderr does not say why: $(cat "$SCRATCH/b.json.err")"
jq -e '.stopped | test("switched to .* from outside the tool")' "$SCRATCH/b.json" > /dev/null ||
	fail "the report does not say why it stopped: $(jq -c .stopped "$SCRATCH/b.json")"
echo "$took < 3" | bc | grep -q 1 || fail "the run took $took s to stop after the switch"
[ "$(sched_of "$N")" = none ] || fail "after the switch from outside the disk is on $(sched_of "$N"), not none"
fewer=$(jq --argjson y "$yours" '[.slots[].your_reads] | (add / length) < $y / 4' "$SCRATCH/b.json")
[ "$fewer" = true ] || fail "without the reader, your reads per slot: $(jq -c '[.slots[].your_reads]' "$SCRATCH/b.json") (with it $yours)"
kill "$LOCKER"
[ -e "/run/iosched-top/ab.$N.lock" ] && fail "the run's lock file was left: /run/iosched-top/ab.$N.lock"
note "stopped $took s after the switch to $other; without the reader: $(jq -c '[.slots[].your_reads]' "$SCRATCH/b.json")"

# 3. --no-bpf: the probe decides alone, and says so; SIGTERM: partial, none back.
reader_on
live_run "$SCRATCH/c.json" --dwell 1.5 --warmup 0.5 --max-time 30 --no-bpf
sleep 6
kill -TERM "$PID"
wait "$PID"
rc=$?
[ "$rc" = 1 ] || fail "SIGTERM: exit $rc: $(cat "$SCRATCH/c.json.err")"
jq -e '.partial == true and (.yours | test("not measured \\(--no-bpf\\)")) and all(.slots[]; .your_reads == null)' \
	"$SCRATCH/c.json" > /dev/null || fail "--no-bpf or SIGTERM report wrong: $(jq -c '{partial, yours, n: [.slots[].your_reads]}' "$SCRATCH/c.json")"
[ "$(sched_of "$N")" = none ] || fail "after SIGTERM the disk is on $(sched_of "$N")"

# 4. Too short for a verdict: refused before anything changes.
"$BIN" --ab-live "$V" --disk "$N" --max-time 30 --dwell 3 --warmup 1 > "$SCRATCH/short.out" 2>&1
rc=$?
[ "$rc" = 2 ] && grep -q "a verdict needs 6: give --max-time 50 or more" "$SCRATCH/short.out" ||
	fail "a --max-time too short: exit $rc: $(cat "$SCRATCH/short.out")"
echo "PASS"
