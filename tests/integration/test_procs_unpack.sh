#!/bin/bash
# A package upgrade's writer is the unpacker, not the shell that started
# it (issue 16): a shell script (as apt runs dpkg) starts an unpacker, a
# child that writes 300 files of 64 KiB with an fsync each (as dpkg does)
# and exits within a second or two. Over the JSON lines, the unpacker is
# listed under its own name with its ~27 MiB (within 10 %), and the shell
# near 0 (under 1 MiB), though the kernel adds the child's bytes to the
# shell's /proc/PID/io when it reaps it. The unpacker writes 8 MiB at once
# when it starts, then pauses: a task first seen alive has already written
# them, and they count (the counters of a task born since the last reading
# start at 0: a tool that took its first reading as the base lost them).
# suite-budget: 10
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd jq python3
setup_scratch

cat > "$SCRATCH/unpacker" <<'PY'
#!/usr/bin/python3
# 8 MiB at once, a pause (it is seen alive), then 300 files of 64 KiB,
# each written and fsync'd, as dpkg unpacks
import os, sys, time
d = sys.argv[1]
block = os.urandom(65536)
with open(os.path.join(d, "burst"), "wb") as f:
    for i in range(128):
        f.write(block)
time.sleep(1.2)
for i in range(300):
    with open(os.path.join(d, "f%03d" % i), "wb") as f:
        f.write(block)
        f.flush()
        os.fsync(f.fileno())
PY
chmod +x "$SCRATCH/unpacker"
printf '#!/bin/bash\nsleep 1.2\n"%s/unpacker" "%s/w"\nsleep 1.5\n' "$SCRATCH" "$SCRATCH" > "$SCRATCH/upgrade.sh"
chmod +x "$SCRATCH/upgrade.sh"
mkdir "$SCRATCH/w"

# The tool watches for as long as the upgrade takes, then one refresh more
# (the interval the unpacker's exit record lands in): a disk busy with
# another writer made 300 fsyncs take longer than a fixed run of 6 s once
# (half the bytes were never seen), so the run is ended by SIGTERM (a
# clean end, exit 0) rather than by an iteration count.
"$BIN" $PROCS_ARGS --json -d 0.5 -n 600 --no-probe --procs 100000 > "$SCRATCH/out.json" 2> "$SCRATCH/err" &
TOOL=$!
on_exit "kill $TOOL 2>/dev/null"
sleep 0.5
"$SCRATCH/upgrade.sh" &
SH=$!
wait $SH || fail "the upgrade script failed"
sleep 1.2
kill -TERM $TOOL
wait $TOOL || fail "iosched-top exited $?: $(cat "$SCRATCH/err")"
jq -e -s 'all(.[]; .writers.exit_records)' "$SCRATCH/out.json" >/dev/null || fail "no exit records as root"

# (a process's rates cover the time since the walk before, writers.walk_s:
# under load it differs from the line's interval_s, and summing with that
# charged the unpacker 11 % more than it wrote)
bytes() { jq -s --argjson p "$SH" "[.[] | (.writers.walk_s // .interval_s) as \$t | .procs[] | select($1) | .write_Bps * \$t] | add // 0" "$SCRATCH/out.json"; }
unpacker=$(bytes '.comm == "unpacker" and .ppid == $p')
shell=$(bytes '.pid == $p')
want=$((128 * 65536 + 300 * 65536))
note "unpacker: $unpacker bytes ($want written); its shell: $shell"
within "$unpacker" "$want" 10 || fail "the unpacker is charged $unpacker bytes, not its $want within 10 %"
awk -v b="$shell" 'BEGIN { exit !(b < 1048576) }' || fail "the shell is charged $shell bytes"
jq -e -s --argjson p "$SH" 'any(.[].procs[]; .comm == "unpacker" and .ppid == $p and .exited)' "$SCRATCH/out.json" >/dev/null ||
	fail "the unpacker is not listed as ended"
tasks_from_is "$SCRATCH/out.json"
echo "PASS"
