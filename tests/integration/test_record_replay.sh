#!/bin/bash
# --record and --replay on a loop device this test attaches, with a
# scheduler switch (--set) in the recorded run:
#  - the replay in batch (--json) prints, line for line, what the live
#    batch printed (byte for byte: every figure is recorded in full; a
#    process whose name is not UTF-8 writes beside it);
#  - the replay's text and CSV outputs work from the recording too, and an
#    unprivileged user can replay it;
#  - a recording cut short mid-line plays its whole lines, then says at
#    which line it stopped and why (exit 1);
#  - a recording of a newer format version, a file that is not a
#    recording and a missing file are refused with exit 2.
# suite-budget: 10
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd jq losetup setpriv
setup_scratch

attach_loop 64 fill; L=$LOOP
N=$(basename "$L")
other_sched "$N"
REC=$SCRATCH/run.rec
# A writer whose name is not UTF-8 (JSON shows the byte as \ufffd; read
# back from the recording, that must be written the same way).
W=$SCRATCH/$(printf 'w\377x')
cp "$(command -v dd)" "$W"
( while :; do "$W" if=/dev/zero of="$SCRATCH/junk" bs=64k count=16 conv=fsync status=none; sleep 0.05; done ) &
WLOOP=$!
on_exit "kill $WLOOP"
"$BIN" --json -d 0.5 -n 6 --disk "$N" --probe "$N" --set "$N=$ALT" --record "$REC" > "$SCRATCH/live.json" \
	2> "$SCRATCH/live.err" || fail "live run exited $?: $(cat "$SCRATCH/live.err")"
kill $WLOOP
grep -qF '"w\ufffdx"' "$SCRATCH/live.json" || fail "the writer named w\\377x is not in the live run's JSON"
[ "$(wc -l < "$REC")" -eq 7 ] || fail "recording has $(wc -l < "$REC") lines, not 1 + 6"
head -n1 "$REC" | jq -e '.format == "iosched-top-recording" and .version == 3 and (.host | length > 0)' >/dev/null ||
	fail "bad first line: $(head -n1 "$REC")"
jq -e -s --arg s "$ALT" '[.[].events[] | select(.type == "scheduler" and .to == $s)] | length == 1' "$SCRATCH/live.json" >/dev/null ||
	fail "the live run did not switch"

"$BIN" --replay "$REC" --json > "$SCRATCH/replay.json" 2> "$SCRATCH/replay.err" || fail "replay exited $?: $(cat "$SCRATCH/replay.err")"
if ! cmp -s "$SCRATCH/live.json" "$SCRATCH/replay.json"; then
	# (jq would show the same text for two spellings of one string: the
	# lines themselves, from the first byte that differs)
	cmp "$SCRATCH/live.json" "$SCRATCH/replay.json" >&2
	diff "$SCRATCH/live.json" "$SCRATCH/replay.json" | head -4 | cut -c1-400 >&2
	fail "the replay's JSON differs from the live run's"
fi
note "replayed $(wc -l < "$SCRATCH/replay.json") ticks, identical to the live JSON"

# Text and CSV from the recording; as nobody (no root needed to replay).
chmod 755 "$SCRATCH"; chmod 644 "$REC"
cp "$BIN" "$SCRATCH/iosched-top" && chmod 755 "$SCRATCH/iosched-top"
setpriv --reuid=65534 --regid=65534 --clear-groups "$SCRATCH/iosched-top" --replay "$REC" --csv > "$SCRATCH/replay.csv" \
	2> "$SCRATCH/csv.err" || fail "unprivileged CSV replay exited $?: $(cat "$SCRATCH/csv.err")"
[ "$(head -n1 "$SCRATCH/replay.csv" | cut -d, -f1-4)" = "ts,disk,kind,scheduler" ] || fail "CSV header: $(head -n1 "$SCRATCH/replay.csv")"
grep -q "^[0-9.]*,$N,loop,$ALT," "$SCRATCH/replay.csv" || fail "no CSV row of $N on $ALT"
"$BIN" --replay "$REC" -b > "$SCRATCH/replay.txt" || fail "text replay failed"
grep -q "^$N " "$SCRATCH/replay.txt" || fail "text replay lacks $N"
grep -q "event: $N scheduler .* -> $ALT" "$SCRATCH/replay.txt" || fail "text replay lacks the switch"

# --disk in a replay shows only the disks named, as a live run would; one
# the recording lacks is refused with what it has.
"$BIN" --json -d 0.3 -n 2 --no-probe --record "$SCRATCH/all.rec" > /dev/null 2>&1 || fail "recording of all disks failed"
jq -e -s 'all(.[]; .disks | length >= 2)' <("$BIN" --replay "$SCRATCH/all.rec" --json) >/dev/null ||
	fail "the recording of all disks has fewer than two"
jq -e -s --arg n "$N" 'all(.[]; [.disks[].name] == [$n])' <("$BIN" --replay "$SCRATCH/all.rec" --json --disk "$N") >/dev/null ||
	fail "--disk $N in the replay: $("$BIN" --replay "$SCRATCH/all.rec" --json --disk "$N" | jq -c '[.disks[].name]')"
"$BIN" --replay "$SCRATCH/all.rec" --json --disk nosuchdisk9 > "$SCRATCH/nd.json" 2> "$SCRATCH/nd.err"
[ $? -eq 2 ] && [ ! -s "$SCRATCH/nd.json" ] && grep -q "disk nosuchdisk9: not in the recording .* (it has .*$N" "$SCRATCH/nd.err" ||
	fail "a disk the recording lacks: $(cat "$SCRATCH/nd.err")"

# Cut short in the middle of line 5: lines 2-4 play, then a message; exit 1.
head -c "$(( $(head -n4 "$REC" | wc -c) + 100 ))" "$REC" > "$SCRATCH/cut.rec"
"$BIN" --replay "$SCRATCH/cut.rec" --json > "$SCRATCH/cut.json" 2> "$SCRATCH/cut.err"
rc=$?
[ $rc -eq 1 ] || fail "cut recording: exit $rc, not 1"
[ "$(wc -l < "$SCRATCH/cut.json")" -eq 3 ] || fail "cut recording played $(wc -l < "$SCRATCH/cut.json") ticks, not 3"
grep -q "cut.rec:5: cut short" "$SCRATCH/cut.err" || fail "no line number and reason: $(cat "$SCRATCH/cut.err")"
note "$(cat "$SCRATCH/cut.err")"

# A newer version, not a recording, a missing file: refused, exit 2.
{ echo '{"format":"iosched-top-recording","version":99}'; tail -n +2 "$REC"; } > "$SCRATCH/new.rec"
"$BIN" --replay "$SCRATCH/new.rec" --json > /dev/null 2> "$SCRATCH/new.err"
[ $? -eq 2 ] || fail "newer version not refused with exit 2"
grep -q "version 99 is newer" "$SCRATCH/new.err" || fail "newer version message: $(cat "$SCRATCH/new.err")"
echo '{"ts":1}' > "$SCRATCH/not.rec"
"$BIN" --replay "$SCRATCH/not.rec" --json > /dev/null 2> "$SCRATCH/not.err"
[ $? -eq 2 ] && grep -q "not.rec:1: not a recording" "$SCRATCH/not.err" || fail "non-recording: $(cat "$SCRATCH/not.err")"
"$BIN" --replay "$SCRATCH/missing.rec" --json > /dev/null 2> "$SCRATCH/miss.err"
[ $? -eq 2 ] && grep -q "missing.rec: No such file" "$SCRATCH/miss.err" || fail "missing file: $(cat "$SCRATCH/miss.err")"
"$BIN" --replay "$REC" --set "$N=none" --json > /dev/null 2> "$SCRATCH/clash.err"
[ $? -eq 2 ] && grep -q "conflicts" "$SCRATCH/clash.err" || fail "--replay with --set: $(cat "$SCRATCH/clash.err")"
echo "PASS"
