#!/bin/bash
# A first run in file mode shows latency within seconds: it reads a 64 MiB
# start file while its whole probe file is written, says so (JSON
# "start_file", "preparing_pct"; the path read ends in .start), then moves
# to the whole file and removes the start file. Played by an unprivileged
# user (nobody cannot open /dev/loopN: the probe falls back to a file on
# the loop device's own filesystem), on an ext4 filesystem this test makes:
#  - beside a fio writer (20 MB/s), the whole file (512 MiB) is written at
#    4 MB/s, but reads of the start file come within 4 s; the run ends
#    with the whole file unfinished: its partial file is gone, and the
#    start file with it (test_probe_start_exit: on every exit but SIGKILL);
#  - alone, a 256 MiB whole file is written within the run: the reads move
#    to it and the start file goes.
# suite-budget: 45
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd jq losetup mkfs.ext4 mount setpriv fio
setup_scratch

nobody_probe_fs 60
probe_at() { sed -n "${2}p" "$1" | jq -c '.disks[0].probe | {n, mode, path, start_file, preparing_pct}'; }

as_nobody --json -d 1 -n 6 --disk "$N" --probe-file-size 512M > "$SCRATCH/a.json" || fail "the busy run exited $?"
kill "$FIO"; wait "$FIO" 2>/dev/null
note "busy, line 4: $(probe_at "$SCRATCH/a.json" 4)"
sed -n 4p "$SCRATCH/a.json" | jq -e '.disks[0].probe | .mode == "file" and .n > 0 and .start_file == true and
	(.path | endswith(".start")) and .preparing_pct < 100' > /dev/null ||
	fail "no reads of a start file within 4 s: $(probe_at "$SCRATCH/a.json" 4)"
[ ! -e "$D/$N.probe.start" ] || fail "the start file was left: $(ls -a "$D")"
[ ! -e "$D/$N.probe" ] || fail "an unfinished whole file got its name"
[ -z "$(find "$D" -name '*.tmp')" ] || fail "the unfinished whole file was left: $(ls -a "$D")"

as_nobody --json -d 1 -n 14 --disk "$N" --probe-file-size 256M > "$SCRATCH/b.json" || fail "the quiet run exited $?"
note "quiet, line 1: $(probe_at "$SCRATCH/b.json" 1); last: $(probe_at "$SCRATCH/b.json" 14)"
tail -n1 "$SCRATCH/b.json" | jq -e '.disks[0].probe | .n > 0 and .start_file == null and .preparing_pct == null and
	(.path | endswith(".probe"))' > /dev/null || fail "the reads did not move to the whole file: $(probe_at "$SCRATCH/b.json" 14)"
[ -f "$D/$N.probe" ] || fail "no whole probe file"
[ ! -e "$D/$N.probe.start" ] || fail "the start file was not removed once the whole file was read"
[ "$(stat -c %s "$D/$N.probe")" -eq $((256 << 20)) ] || fail "the whole file is $(stat -c %s "$D/$N.probe") bytes"
echo "PASS"
