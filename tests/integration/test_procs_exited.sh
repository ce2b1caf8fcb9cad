#!/bin/bash
# Short-lived processes under their own names (taskstats exit records,
# issue 16): a bash loop runs 200 dd writers of 1 MiB each (conv=fsync,
# about 20 ms apart), then a child bash that writes 2 MiB itself and runs
# a grandchild dd of 1 MiB, both ending in the same interval. Over the
# JSON lines:
#  - the loop's dd rows (ended, with a count) add up to 200 MiB within
#    10 %; the loop's own bash stays near 0 (under 2 MiB in all);
#  - the child bash is charged its own 2 MiB and the grandchild dd its
#    1 MiB (each within 10 %), neither counted twice;
#  - an ended row's own bytes are in one JSON line only (a row shown again
#    when its dirtied pages reach the disk carries none of them, and a
#    count of 0: the process ended once).
# /proc/PID/io alone would give the loop's bash all 200 MiB (the kernel
# adds a reaped child's bytes to its parent).
# suite-budget: 35
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd jq dd
setup_scratch

# Until the loop has ended and two refreshes more (a fixed count of
# refreshes ended before the last dd on a loaded machine: 187 of 200);
# -n only bounds a run that nothing stops.
"$BIN" $PROCS_ARGS --json -d 1 -n 120 --no-probe --procs 100000 > "$SCRATCH/out.json" 2> "$SCRATCH/err" &
TOOL=$!
on_exit "kill $TOOL"
sleep 1.5
mkdir "$SCRATCH/w"
bash -c 'd=$1
	for i in $(seq 200); do dd if=/dev/zero of="$d/f$i" bs=1M count=1 conv=fsync status=none; rm -f "$d/f$i"; sleep 0.02; done
	sleep 1.2
	bash -c "printf %2097152s x > \"\$1/c.dat\"; dd if=/dev/zero of=\"\$1/g.dat\" bs=1M count=1 conv=fsync status=none; true" _ "$d"
	sleep 1.5' _ "$SCRATCH/w" &
LOOP_PID=$!
wait $LOOP_PID || fail "the writing loop failed"
# the child bash's 2 MiB reach the disk now, after it ended: its row is
# shown again for them (with the BPF part)
sync
sleep 2.5
kill -INT $TOOL
wait $TOOL || fail "iosched-top exited $?: $(cat "$SCRATCH/err")"
jq -e -s 'all(.[]; .writers.exit_records)' "$SCRATCH/out.json" >/dev/null ||
	fail "no exit records as root: $(tail -n1 "$SCRATCH/out.json" | jq -c .writers)"

# Bytes per JSON row: write_Bps over its interval.
bytes() { jq -s --argjson p "$LOOP_PID" "$1" "$SCRATCH/out.json"; }
# (a dd read alive at a refresh has a live row for that interval, and its
# ended row holds only the rest)
dd_total=$(bytes '[.[] | (.writers.walk_s // .interval_s) as $t | .procs[] | select(.comm == "dd" and .ppid == $p) | .write_Bps * $t] | add // 0')
dd_count=$(bytes '[.[] | .procs[] | select(.exited and .comm == "dd" and .ppid == $p) | .count] | add // 0')
loop_total=$(bytes '[.[] | (.writers.walk_s // .interval_s) as $t | .procs[] | select(.pid == $p and (.exited | not)) | .write_Bps * $t] | add // 0')
note "loop's dd: $dd_count ended, $dd_total bytes written (200 MiB = 209715200); the loop's bash: $loop_total"
[ "$dd_count" -eq 200 ] || fail "$dd_count dd processes counted, not 200"
within "$dd_total" 209715200 10 || fail "the dd processes wrote $dd_total bytes, not 200 MiB within 10 %"
awk -v b="$loop_total" 'BEGIN { exit !(b < 2 * 1048576) }' || fail "the loop's bash is charged $loop_total bytes"

# One child bash ended. With BPF its row comes back in a later line when
# the pages it dirtied reach the disk (TO-DISK), with none of its own
# bytes: only the first of its ended rows may carry any.
child=$(bytes '[.[] | .procs[] | select(.exited and .comm == "bash" and .ppid == $p)]
	| if ([.[].pid] | unique | length) == 1 and ([.[1:][] | .write_Bps + .read_Bps + .count] | add // 0) == 0 then .[0].pid
	  else "rows: \([.[] | {pid, count, write_Bps, to_disk_Bps}])" end')
[[ $child =~ ^[0-9]+$ ]] || fail "the child bash is not listed once as ended ($child)"
c_total=$(bytes "[.[] | (.writers.walk_s // .interval_s) as \$t | .procs[] | select(.pid == $child) | .write_Bps * \$t] | add")
g_total=$(bytes "[.[] | (.writers.walk_s // .interval_s) as \$t | .procs[] | select(.exited and .comm == \"dd\" and .ppid == $child) | .write_Bps * \$t] | add // 0")
note "child bash ($child): $c_total bytes (2 MiB = 2097152); its dd: $g_total (1 MiB = 1048576)"
within "$c_total" 2097152 10 || fail "the child bash is charged $c_total bytes, not its own 2 MiB"
within "$g_total" 1048576 10 || fail "the grandchild dd is charged $g_total bytes, not its 1 MiB"
tasks_from_is "$SCRATCH/out.json"
echo "PASS"
