#!/bin/bash
# A first run in file mode writes a 64 MiB start file, then its whole probe
# file (test_probe_start). Whatever ends the run but SIGKILL, neither is
# left half done and the start file goes with the run: SIGTERM, SIGINT and
# SIGHUP while the whole file is written, SIGTERM while the start file
# itself is written, and a batch run whose -n ends first. A second run that
# found the first one's start file there, and ends first, leaves it to the
# first (which removes it at its end). Played by nobody
# (who cannot open /dev/loopN: the probe falls back to a file on the loop
# device's own filesystem, in .iosched-top-65534 there), on an ext4
# filesystem this test makes, beside a fio writer (20 MB/s) that keeps the
# whole file (512 MiB, written at a tenth of the others' rate) unfinished.
# suite-budget: 30
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd jq losetup mkfs.ext4 mount setpriv fio
setup_scratch

nobody_probe_fs 120
left() { ls -A "$D" 2>/dev/null | xargs; }

# wait_file PATTERN: until a file in $D matches the find -name PATTERN, at
# most 15 s (the start file takes ~2 s at its pace).
wait_file() {
	for _ in $(seq 300); do
		[ -n "$(find "$D" -maxdepth 1 -name "$1" 2>/dev/null)" ] && return 0
		sleep 0.05
	done
	fail "no $1 in $D after 15 s: $(left)"
}

# ends SIGNAL PATTERN: a run, signalled once PATTERN is there; nothing left.
ends() {
	# (setpriv execs the tool: the signal goes to it, not to a shell)
	setpriv --reuid=65534 --regid=65534 --clear-groups "$SCRATCH/iosched-top" -b -d 1 --disk "$N" \
		--probe-file-size 512M > /dev/null 2> "$SCRATCH/$1.err" &
	local pid=$!
	wait_file "$2"
	local seen
	seen=$(left)
	kill -"$1" "$pid"
	wait "$pid"
	[ -z "$(left)" ] || fail "SIG$1 with $seen there left: $(left); stderr: $(cat "$SCRATCH/$1.err")"
	note "SIG$1 with $seen there: nothing left"
}
for sig in TERM INT HUP; do ends "$sig" ".$N.probe.[0-9]*.tmp"; done
# ("$N.probe.start" whole and the whole file's temporary begun, above;
# here the start file's own temporary)
ends TERM ".$N.probe.start.*.tmp"

# two runs: the second reads the first's start file and ends first
setpriv --reuid=65534 --regid=65534 --clear-groups "$SCRATCH/iosched-top" -b -d 1 --disk "$N" \
	--probe-file-size 512M > /dev/null 2> "$SCRATCH/first.err" &
FIRST=$!
on_exit "kill $FIRST 2>/dev/null"
wait_file ".$N.probe.[0-9]*.tmp" # the start file whole, the whole file begun
as_nobody -b -d 1 -n 3 --disk "$N" --probe-file-size 512M > /dev/null 2> "$SCRATCH/second.err" ||
	fail "the second run exited $?: $(cat "$SCRATCH/second.err")"
kill -0 "$FIRST" 2>/dev/null || fail "the first run ended early: $(cat "$SCRATCH/first.err")"
[ -f "$D/$N.probe.start" ] || fail "the second run removed the first run's start file: $(left)"
kill -TERM "$FIRST"
wait "$FIRST"
[ -z "$(left)" ] || fail "the first run, ended after the second, left: $(left)"
note "a second run ended first: the first's start file stayed, and went with the first"

as_nobody --json -d 1 -n 4 --disk "$N" --probe-file-size 512M > "$SCRATCH/n.json" || fail "the -n run exited $?"
tail -n1 "$SCRATCH/n.json" | jq -e '.disks[0].probe | .start_file == true and .preparing_pct < 100' > /dev/null ||
	fail "the whole file was done or no start file read by the end: the test proves nothing ($(tail -n1 "$SCRATCH/n.json" | jq -c .disks[0].probe))"
[ -z "$(left)" ] || fail "a run whose -n ended while the whole file was written left: $(left)"
note "-n ended at $(tail -n1 "$SCRATCH/n.json" | jq -r .disks[0].probe.preparing_pct)%: nothing left"
echo "PASS"
