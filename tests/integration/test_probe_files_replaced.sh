#!/bin/bash
# Files replaced while the read-only file mode reads them are dropped
# without an error, and the choice is made again once half of them went.
# On an ext4 filesystem on a loop device this test makes, six files of
# 24 MiB (random data, written through), probed by nobody (who cannot open
# /dev/loopN, so the probe reads those files: probe.mode "files"):
#  - phase 1: one file is replaced (a new file renamed over it) and another
#    truncated: both are dropped and the JSON says so within 20 s
#    (probe.files two fewer than at the start, span_bytes smaller);
#  - phase 2: two more are replaced (the tool stopped meanwhile, so that
#    both go at once): with half the files gone the files are chosen
#    again, and within 20 s probe.files counts every file of the
#    filesystem large enough to read (the replacements among them);
#  - on every line the probe is in mode "files" (an ended probe says
#    "off"), and it reads after each phase; SIGTERM ends it as usual
#    (0 or 143), and nothing is said on stderr about the probe;
#  - the tool writes nothing there: the filesystem's names are the same
#    after as before, and the tool's write_bytes (/proc/PID/io, the tool
#    and its children, sampled until it exits) stay under 1 MiB (what it
#    may write: the access times of files nobody does not own).
# suite-budget: 30
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd jq losetup mkfs.ext4 mount setpriv
setup_scratch

ext4_loop 256
chmod 755 "$SCRATCH" "$MNT"
# The replacements are written before the run, in a directory nobody
# cannot enter (the probe never sees them there), so that during the run
# a replacement is a rename alone, and no write of the test's makes the
# probe's reads wait.
mkdir -m 700 "$MNT/stash"
# put NAME: a 24 MiB file of random data at stash/NAME, on the disk (its
# extents written, not delayed)
put() {
	dd if=/dev/urandom of="$MNT/stash/$1" bs=1M count=24 conv=fsync status=none || fail "cannot write $MNT/stash/$1"
	chmod 644 "$MNT/stash/$1"
}
# replace NAME: stash/NAME moved over NAME
replace() { mv -f "$MNT/stash/$1" "$MNT/$1" || fail "cannot move a file over $MNT/$1"; }
for i in 1 2 3 4 5 6; do put "f$i" && replace "f$i"; done
for f in f1 f3 f4; do put "$f"; done
sync
cp "$BIN" "$SCRATCH/iosched-top" && chmod 755 "$SCRATCH/iosched-top" || fail "cannot copy $BIN"
# the filesystem's names, and what the probe may read: files of 256 KiB
# or more outside the stash (their count, bytes)
names() { find "$MNT" -mindepth 1 -path "$MNT/stash" -prune -o -printf '%P\n' | sort; }
readable() {
	find "$MNT" -path "$MNT/stash" -prune -o -type f -size +255k -printf '%s\n' |
		awk '{ n++; b += $1 } END { print n + 0, b + 0 }'
}
NAMES0=$(names)
read -r FILES0 BYTES0 < <(readable)
OUT=$SCRATCH/out.json
lines() { wc -l < "$OUT" 2>/dev/null || echo 0; }
# wait_lines K: until the tool has written K lines, at most 20 s
wait_lines() {
	for _ in $(seq 200); do [ "$(lines)" -ge "$1" ] && return 0; sleep 0.1; done
	fail "only $(lines) lines after 20 s, waiting for $1: $(head -c 300 "$SCRATCH/err")"
}

# files_now: probe.files on the last line (a line being written: nothing)
files_now() { tail -n1 "$OUT" | jq -r .disks[0].probe.files 2>/dev/null; }
# until_files K WHAT: until the last line's probe.files is K, at most 20 s
until_files() {
	for _ in $(seq 200); do [ "$(files_now)" = "$1" ] && return 0; sleep 0.1; done
	fail "$2: probe.files is $(files_now) after 20 s, not $1: $(tail -n1 "$OUT" | jq -c '.disks[0].probe | del(.slow)')"
}
# reads_after L: the probe's reads on the lines after line L
reads_after() { jq -s --argjson l "$1" '[.[$l:][] | .disks[0].probe.n] | add // 0' "$OUT"; }

setpriv --reuid=65534 --regid=65534 --clear-groups "$SCRATCH/iosched-top" --json -d 0.5 --disk "$N" \
	--probe "$N" --procs 0 > >(cat > "$OUT") 2> "$SCRATCH/err" &
PID=$!
on_exit "kill $PID 2>/dev/null"
# the tool's and its children's write_bytes, until it exits
tree() { local c; echo "$1"; for c in $(pgrep -P "$1"); do tree "$c"; done; }
(while kill -0 "$PID" 2>/dev/null; do
	w=$(for p in $(tree "$PID"); do cat "/proc/$p/io" 2>/dev/null; done | awk '/^write_bytes:/ { w += $2; n++ } END { if (n) print w }')
	[ -n "$w" ] && echo "$w" > "$SCRATCH/wb"
	sleep 0.1
done) &

wait_lines 4
[ "$(sed -n 4p "$OUT" | jq -r .disks[0].probe.mode)" = files ] ||
	fail "the probe does not read the files: $(sed -n 4p "$OUT" | jq -c '.disks[0].probe | del(.slow)')"
[ "$(sed -n 1p "$OUT" | jq -r .disks[0].probe.files)" = "$FILES0" ] ||
	fail "the probe began with $(sed -n 1p "$OUT" | jq -r .disks[0].probe.files) files, not the $FILES0 there"

# Phase 1: two files gone, both dropped and counted out, the others read.
replace f1
truncate -s 8M "$MNT/f2"
L1=$(lines)
until_files $((FILES0 - 2)) "after one file was replaced and one truncated"
L2=$(lines)
tail -n1 "$OUT" | jq -e --argjson b "$BYTES0" --argjson f "$FILES0" '.disks[0].probe.span_bytes <= $b * ($f - 2) / $f' \
	> /dev/null || fail "span_bytes did not shrink with the files: $(tail -n1 "$OUT" | jq .disks[0].probe.span_bytes) of $BYTES0"

# Phase 2: half of them gone: chosen again, with what is there now. The
# tool is stopped while both are replaced: a choice made between the two
# renames would take the new f3 and the old f4, then drop f4 again, and the
# count would differ from what is there for a reason of the test's timing.
on_exit "kill -CONT $PID 2>/dev/null"
kill -STOP "$PID"
replace f3
replace f4
kill -CONT "$PID"
read -r files1 bytes1 < <(readable)
until_files "$files1" "after two more were replaced, the files were not chosen again"
L3=$(lines)
tail -n1 "$OUT" | jq -e --argjson b "$bytes1" '.disks[0].probe | .span_bytes > 0 and .span_bytes <= $b' > /dev/null ||
	fail "chosen again, but span_bytes $(tail -n1 "$OUT" | jq .disks[0].probe.span_bytes) with $bytes1 bytes there"
wait_lines $((L3 + 2))
kill -TERM "$PID"
wait "$PID"
rc=$?
[ "$rc" = 0 ] || [ "$rc" = 143 ] || fail "the tool exited $rc on SIGTERM: $(head -c 400 "$SCRATCH/err")"
sleep 0.3 # the pipe's reader writes the last line
note "phase 1 after line $L1, counted at line $L2; phase 2 after line $L2, chosen again at line $L3"
note "probe.files by line: $(jq -r .disks[0].probe.files "$OUT" | uniq -c | awk '{ print $2 "x" $1 }' | xargs)"

jq -s -e 'all(.[]; .disks[0].probe.mode == "files")' "$OUT" > /dev/null ||
	fail "the probe left the file mode: $(jq -c '.disks[0].probe | select(.mode != "files") | del(.slow)' "$OUT" | head -n1)"
[ "$(reads_after "$L1")" -gt 0 ] && [ "$(reads_after "$L3")" -gt 0 ] ||
	fail "no reads after the files were replaced: $(jq -r .disks[0].probe.n "$OUT" | xargs)"
grep -iE 'probe|error|stopped' "$SCRATCH/err" && fail "the probe complained on stderr"

[ "$(names)" = "$NAMES0" ] || fail "the filesystem's names changed: $(diff <(echo "$NAMES0") <(names) | grep '^[<>]' | xargs)"
[ -s "$SCRATCH/wb" ] || fail "/proc/PID/io of the tool was never read"
[ "$(cat "$SCRATCH/wb")" -lt $((1 << 20)) ] || fail "the tool wrote $(cat "$SCRATCH/wb") bytes (write_bytes)"
note "write_bytes of the tool and its children: $(cat "$SCRATCH/wb")"
echo "PASS"
