#!/bin/bash
# TO-DISK during an unpack, as dpkg does it: a process writes 600 files of
# 16 KiB into ext4 on a loop device, each written and fsync'd. Summed over
# the run on that device (JSON procs[].to_disk_by_disk): the unpacker's
# rows carry at least 80 % of its 9.4 MiB; the journal's thread (jbd2 of
# that device) carries the commits the fsyncs force, and its rows are
# labelled journal (kind "journal", "[journal]" on screen and in CSV), not
# writeback; no kworker row carries more than 20 % of the file data; and
# all rows together carry no more than the disk wrote (diskstats), so
# nothing is counted twice.
# suite-budget: 30
# suite-alone: its 600 fsyncs flood the disk the other tests' loop devices live on
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd jq losetup mkfs.ext4 mount python3
setup_scratch

ext4_loop 512
mkdir "$MNT/u"
cat > "$SCRATCH/unpacker" <<'PY'
#!/usr/bin/python3
import os, sys
block = os.urandom(16384)
for i in range(600):
    with open(os.path.join(sys.argv[1], "f%03d" % i), "wb") as f:
        f.write(block)
        f.flush()
        os.fsync(f.fileno())
PY
chmod +x "$SCRATCH/unpacker"
"$BIN" --json -d 0.5 --disk "$N" --no-probe --procs 100000 > "$SCRATCH/out.json" 2> "$SCRATCH/err" &
TOOL=$!
on_exit "kill $TOOL 2>/dev/null"
for _ in $(seq 100); do tail -n1 "$SCRATCH/out.json" 2>/dev/null | jq -e '.blk.on' > /dev/null 2>&1 && break; sleep 0.1; done
tail -n1 "$SCRATCH/out.json" | jq -e '.blk.on' > /dev/null || skip "block latency is off: $(tail -n1 "$SCRATCH/out.json" | jq -r .blk.why)"
"$SCRATCH/unpacker" "$MNT/u" || fail "the unpacker failed"
sleep 1.5 # the last commit's interval is in a sample
kill -INT "$TOOL"
wait "$TOOL" || fail "the tool exited $?: $(cat "$SCRATCH/err")"

jq -s --arg n "$N" '
	[.[] | select(.blk.on) | .interval_s as $i | .procs[] |
	 {comm, kind, b: ((((.to_disk_by_disk // {})[$n]) // 0) * $i)}] as $rows
	| {unpacker: ([$rows[] | select(.comm == "unpacker") | .b] | add // 0),
	   jbd2: ([$rows[] | select(.comm | startswith("jbd2/" + $n)) | .b] | add // 0),
	   jbd2_kinds: ([$rows[] | select((.comm | startswith("jbd2/" + $n)) and .b > 0) | .kind] | unique),
	   kworker: ([$rows[] | select(.comm | startswith("kworker")) | .b] | add // 0),
	   all: ([$rows[] | .b] | add // 0)}' "$SCRATCH/out.json" > "$SCRATCH/sum.json"
# what the disk wrote over the same intervals, as diskstats says
disk=$(jq -s --arg n "$N" '[.[] | select(.blk.on) | .interval_s as $i | .disks[] | select(.name == $n) | (.wkB_s // 0) * 1024 * $i] | add // 0' "$SCRATCH/out.json")
jq -e 'has("unpacker")' "$SCRATCH/sum.json" > /dev/null || fail "the run's JSON could not be summed"
data=$((600 * 16384))
note "on $N: $(jq -c '{unpacker, jbd2, jbd2_kinds, kworker, all}' "$SCRATCH/sum.json"), the disk wrote $disk (file data $data)"
jq -e --argjson t "$data" '.unpacker >= 0.8 * $t' "$SCRATCH/sum.json" > /dev/null || fail "the unpacker's rows carry less than 80 % of its $data bytes"
jq -e '.jbd2 > 0' "$SCRATCH/sum.json" > /dev/null || fail "the journal's commits are charged to no jbd2 row"
jq -e '.jbd2_kinds == ["journal"]' "$SCRATCH/sum.json" > /dev/null || fail "jbd2's rows are not labelled journal"
jq -e --argjson t "$data" '.kworker <= 0.2 * $t' "$SCRATCH/sum.json" > /dev/null || fail "kworker rows carry more than 20 % of the file data"
jq -e --argjson d "$disk" '.all <= 1.02 * $d + 65536' "$SCRATCH/sum.json" > /dev/null || fail "the rows carry more than the disk wrote: counted twice"
echo "PASS"
