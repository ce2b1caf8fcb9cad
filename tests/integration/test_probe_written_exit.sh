#!/bin/bash
# A probe file asked for (--probe-file-size) is written whole before it is
# read (test_probe_written). Whatever ends the run but SIGKILL, no part of
# it is left: SIGTERM, SIGINT and SIGHUP while it is written, and a batch
# run whose -n ends first. A second run that writes beside the first and
# ends first leaves the first's partial file to the first (which removes
# it at its end). Played by nobody (who cannot open /dev/loopN: asked for
# a probe file, the probe writes it on the loop device's own filesystem,
# in .iosched-top-65534 there), on an ext4 filesystem this test makes,
# beside a fio writer (20 MB/s) that keeps the file (512 MiB, written at a
# fraction of the others' rate) unfinished.
# suite-budget: 30
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd jq losetup mkfs.ext4 mount setpriv fio
setup_scratch

nobody_probe_fs 120
left() { ls -A "$D" 2>/dev/null | xargs; }

# wait_file PATTERN: until a file in $D matches the find -name PATTERN, at
# most 15 s.
wait_file() {
	for _ in $(seq 300); do
		[ -n "$(find "$D" -maxdepth 1 -name "$1" 2>/dev/null)" ] && return 0
		sleep 0.05
	done
	fail "no $1 in $D after 15 s: $(left)"
}

# ends SIGNAL: a run, signalled once its partial file is there; nothing left.
ends() {
	# (setpriv execs the tool: the signal goes to it, not to a shell)
	setpriv --reuid=65534 --regid=65534 --clear-groups "$SCRATCH/iosched-top" -b -d 1 --disk "$N" \
		--probe-file-size 512M > /dev/null 2> "$SCRATCH/$1.err" &
	local pid=$!
	wait_file ".$N.probe.$pid.tmp"
	local seen
	seen=$(left)
	kill -"$1" "$pid"
	wait "$pid"
	[ -z "$(left)" ] || fail "SIG$1 with $seen there left: $(left); stderr: $(cat "$SCRATCH/$1.err")"
	note "SIG$1 with $seen there: nothing left"
}
for sig in TERM INT HUP; do ends "$sig"; done

# two runs: the second writes beside the first and ends first
setpriv --reuid=65534 --regid=65534 --clear-groups "$SCRATCH/iosched-top" -b -d 1 --disk "$N" \
	--probe-file-size 512M > /dev/null 2> "$SCRATCH/first.err" &
FIRST=$!
on_exit "kill $FIRST 2>/dev/null"
wait_file ".$N.probe.$FIRST.tmp"
as_nobody -b -d 1 -n 3 --disk "$N" --probe-file-size 512M > /dev/null 2> "$SCRATCH/second.err" ||
	fail "the second run exited $?: $(cat "$SCRATCH/second.err")"
kill -0 "$FIRST" 2>/dev/null || fail "the first run ended early: $(cat "$SCRATCH/first.err")"
[ -f "$D/.$N.probe.$FIRST.tmp" ] || fail "the second run removed the first run's partial file: $(left)"
[ "$(left)" = ".$N.probe.$FIRST.tmp .$N.probe.$FIRST.tmp.lock" ] || fail "the second run, ended, left beside the first's: $(left)"
kill -TERM "$FIRST"
wait "$FIRST"
[ -z "$(left)" ] || fail "the first run, ended after the second, left: $(left)"
note "a second run ended first: the first's partial file stayed, and went with the first"

as_nobody --json -d 1 -n 4 --disk "$N" --probe-file-size 512M > "$SCRATCH/n.json" || fail "the -n run exited $?"
tail -n1 "$SCRATCH/n.json" | jq -e '.disks[0].probe | .mode == "file" and .preparing_pct < 100' > /dev/null ||
	fail "the file was whole by the end: the test proves nothing ($(tail -n1 "$SCRATCH/n.json" | jq -c .disks[0].probe))"
[ -z "$(left)" ] || fail "a run whose -n ended while the file was written left: $(left)"
note "-n ended at $(tail -n1 "$SCRATCH/n.json" | jq -r .disks[0].probe.preparing_pct)%: nothing left"
echo "PASS"
