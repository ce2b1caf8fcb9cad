#!/bin/bash
# A probe file being written when the run ends: any exit but SIGKILL
# removes the partial file, and the next start says a run was killed only
# when one was. The probe file (--probe-file) lies on an ext4 filesystem
# on a loop device this test makes, beside a fio writer (20 MB/s): the
# tool then writes its 2 GiB file at 4 MB/s, as on a laptop's busy disk,
# so the runs below end while it is still being written (each checks that
# it was), between two of its progress reports (1 % = 20 MiB).
#  - a normal end (-n 2), then SIGTERM: no temporary left, no file with
#    the final name, nothing said about a killed run;
#  - SIGKILL: the temporary stays; the next start removes it and says it
#    was left by a run that was killed.
# suite-budget: 30
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd jq losetup mkfs.ext4 mount fio
setup_scratch

ext4_loop 3072
F="$SCRATCH/mnt/probe.dat"
ARGS=(--disk "$N" --probe-file "$F" --probe-file-size 2G)
fio --name=w --filename="$SCRATCH/mnt/w" --size=64M --rw=write --bs=1M --direct=1 --rate=20m --time_based \
	--runtime=120 --output=/dev/null &
FIO=$!
on_exit "kill $FIO"
sleep 1.5
tmps() { find "$SCRATCH/mnt" -maxdepth 1 -name '.probe.dat.*.tmp' | wc -l; }
# wait_tmp: until the temporary exists (the fill has begun), at most 10 s.
wait_tmp() { for _ in $(seq 100); do [ "$(tmps)" -gt 0 ] && return 0; sleep 0.1; done; fail "no temporary appeared"; }

"$BIN" --json -d 0.5 -n 2 "${ARGS[@]}" > "$SCRATCH/a.json" 2> "$SCRATCH/a.err" || fail "the run exited $?"
tail -n1 "$SCRATCH/a.json" | jq -e '(.disks[0].probe.preparing_pct // 100) < 100' > /dev/null ||
	fail "the file was whole before the run ended: the test proves nothing ($(tail -n1 "$SCRATCH/a.json" | jq -c .disks[0].probe))"
[ "$(tmps)" -eq 0 ] || fail "a normal end left the partial probe file: $(ls -a "$SCRATCH/mnt")"
[ ! -e "$F" ] || fail "a partial probe file got the final name"
note "normal end at $(tail -n1 "$SCRATCH/a.json" | jq -r .disks[0].probe.preparing_pct)%: nothing left"

"$BIN" --json -d 0.5 "${ARGS[@]}" > "$SCRATCH/t.json" 2> "$SCRATCH/t.err" &
pid=$!
wait_tmp
kill -TERM "$pid"
wait "$pid"
[ "$(tmps)" -eq 0 ] || fail "SIGTERM left the partial probe file"
grep -q "killed" "$SCRATCH/t.err" && fail "a start after a normal end spoke of a killed run: $(cat "$SCRATCH/t.err")"

"$BIN" --json -d 0.5 "${ARGS[@]}" > /dev/null 2>&1 &
pid=$!
wait_tmp
kill -KILL "$pid"
wait "$pid" 2>/dev/null
[ "$(tmps)" -eq 1 ] || fail "after SIGKILL: $(tmps) temporaries, wanted the killed run's 1"
"$BIN" --json -d 0.5 -n 1 "${ARGS[@]}" > /dev/null 2> "$SCRATCH/k.err" || fail "the run after SIGKILL exited $?"
grep -q "killed" "$SCRATCH/k.err" || fail "the start after SIGKILL did not say what it removed: $(cat "$SCRATCH/k.err")"
note "after SIGKILL: $(grep -m1 killed "$SCRATCH/k.err")"
[ "$(tmps)" -eq 0 ] || fail "the killed run's temporary is still there"
echo "PASS"
