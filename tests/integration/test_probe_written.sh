#!/bin/bash
# A probe file is written only when asked, whole before it is read, and no
# start file comes first. Played by an unprivileged user (nobody cannot
# open /dev/loopN) on a fresh ext4 filesystem this test makes, which holds
# too little to read in the read-only file mode:
#  - without --probe-file-size: the probe ends at once and says why (too
#    little to read) and what to do (--probe-file, --probe-file-size);
#    nothing is written on the filesystem;
#  - with --probe-file-size 512M, beside a fio writer (20 MB/s) that keeps
#    the file unfinished: the probe says it is preparing (mode "file",
#    preparing_pct under 100) and reads nothing meanwhile; no start file
#    appears at any time; the run ends with the file unfinished and
#    leaves no part of it (test_probe_written_exit: every exit but SIGKILL);
#  - alone, with 256M: the file is written whole within the run, then read
#    (the path read is the file), and stays for the next run at its size.
# suite-budget: 45
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd jq losetup mkfs.ext4 mount setpriv fio
setup_scratch

nobody_probe_fs 60
probe_at() { sed -n "${2}p" "$1" | jq -c '.disks[0].probe | {n, mode, why, path, preparing_pct, start_file}'; }
# watch FILE: every name seen in $D while the run writing FILE goes, into FILE.seen
watch() {
	while [ "$(wc -l < "$1" 2>/dev/null || echo 0)" -lt "$2" ]; do ls -A "$D" 2>/dev/null; sleep 0.05; done |
		sort -u > "$1.seen"
}

as_nobody --json -d 0.5 -n 3 --disk "$N" > "$SCRATCH/none.json" || fail "the run without a probe file exited $?"
note "unasked: $(probe_at "$SCRATCH/none.json" 3)"
tail -n1 "$SCRATCH/none.json" | jq -e '.disks[0].probe | .mode == "off" and (.why | test("too little to read")) and
	(.why | test("--probe-file PATH")) and (.why | test("--probe-file-size"))' > /dev/null ||
	fail "too little to read, and not said so: $(probe_at "$SCRATCH/none.json" 3)"
[ ! -e "$D" ] || fail "a run not asked to write a probe file made $D: $(ls -A "$D")"

as_nobody --json -d 1 -n 6 --disk "$N" --probe-file-size 512M > "$SCRATCH/a.json" &
A=$!
watch "$SCRATCH/a.json" 6
wait "$A" || fail "the busy run exited $?"
kill "$FIO"; wait "$FIO" 2>/dev/null
note "busy, line 4: $(probe_at "$SCRATCH/a.json" 4)"
sed -n 4p "$SCRATCH/a.json" | jq -e '.disks[0].probe | .mode == "file" and .n == 0 and .preparing_pct < 100 and
	.start_file == null' > /dev/null || fail "not preparing the file at 4 s, or reading meanwhile: $(probe_at "$SCRATCH/a.json" 4)"
grep -q start "$SCRATCH/a.json.seen" && fail "a start file was written: $(xargs < "$SCRATCH/a.json.seen")"
grep -q "^\.$N\.probe\.[0-9]*\.tmp$" "$SCRATCH/a.json.seen" || fail "the file was never seen written: $(xargs < "$SCRATCH/a.json.seen")"
[ ! -e "$D/$N.probe" ] || fail "an unfinished file got its name"
[ -z "$(find "$D" -name '*.tmp')" ] || fail "the unfinished file was left: $(ls -A "$D")"

as_nobody --json -d 1 -n 14 --disk "$N" --probe-file-size 256M > "$SCRATCH/b.json" &
B=$!
watch "$SCRATCH/b.json" 14
wait "$B" || fail "the quiet run exited $?"
note "quiet, line 1: $(probe_at "$SCRATCH/b.json" 1); last: $(probe_at "$SCRATCH/b.json" 14)"
tail -n1 "$SCRATCH/b.json" | jq -e --arg f "$D/$N.probe" '.disks[0].probe | .mode == "file" and .n > 0 and
	.preparing_pct == null and .path == $f' > /dev/null || fail "the whole file is not read: $(probe_at "$SCRATCH/b.json" 14)"
grep -q start "$SCRATCH/b.json.seen" && fail "a start file was written: $(xargs < "$SCRATCH/b.json.seen")"
# read only once whole: no line reads while it is prepared
jq -s -e 'all(.[]; .disks[0].probe | (.preparing_pct == null) or (.n == 0))' "$SCRATCH/b.json" > /dev/null ||
	fail "reads while the file was written: $(jq -c '.disks[0].probe | {n, preparing_pct}' "$SCRATCH/b.json" | xargs)"
[ -f "$D/$N.probe" ] || fail "no whole probe file"
[ "$(stat -c %s "$D/$N.probe")" -eq $((256 << 20)) ] || fail "the whole file is $(stat -c %s "$D/$N.probe") bytes"
[ "$(ls -A "$D" | xargs)" = "$N.probe" ] || fail "left beside the file: $(ls -A "$D")"
echo "PASS"
