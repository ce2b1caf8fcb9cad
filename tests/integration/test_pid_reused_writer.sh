#!/bin/bash
# The writeback of a writer that ended is not charged to a later process
# under its pid: the BPF part knows a process by its pid and start time.
#  - nobody's "attacker-dd" (pid P) writes 32 MiB buffered to its own file
#    and ends, its pages still dirty;
#  - P goes to uid 1's "victim-job" (ns_last_pid stands in for a user
#    cycling pids until a service forks);
#  - sync: the 32 MiB reach the disk. victim-job's TO-DISK stays at most
#    1 MiB; an [exited] row of pid P named attacker-dd has at least 90 %.
# suite-budget: 15
# suite-alone: it rewinds the kernel's pid counter (ns_last_pid): a test beside it would have its processes get pids just freed, which a pid cycler cannot do that fast (a run of test_procs_exited beside it counted 199 of its 200 dd processes)
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd jq losetup mkfs.ext4 setpriv
[ -w /proc/sys/kernel/ns_last_pid ] || skip "no /proc/sys/kernel/ns_last_pid (CONFIG_CHECKPOINT_RESTORE)"
setup_scratch

ext4_loop 256
mkdir -p "$MNT/a"; chown 65534:65534 "$MNT/a"; chmod 755 "$SCRATCH" "$MNT" "$MNT/a"
cp "$(command -v dd)" "$SCRATCH/attacker-dd"; cp "$(command -v sleep)" "$SCRATCH/victim-job"
chmod 755 "$SCRATCH/attacker-dd" "$SCRATCH/victim-job"

json_with_blk "$SCRATCH/out.json" -d 0.5 --disk "$N" --no-probe --procs 100000

# Another process may take P first (the suite runs beside others): the
# victim tries again, then a new writer (the old one's file removed, its
# dirty pages with it).
V=
for try in 1 2 3 4 5; do
	# (setpriv execs the writer: $! is its pid)
	setpriv --reuid=65534 --regid=65534 --clear-groups "$SCRATCH/attacker-dd" if=/dev/zero of="$MNT/a/G$try" bs=1M count=32 status=none &
	P=$!
	wait $P || fail "attacker-dd failed"
	sleep 0.05 # a later clock tick than P's start, as a real reuse is
	for _ in 1 2 3 4 5; do
		echo $((P - 1)) > /proc/sys/kernel/ns_last_pid
		setpriv --reuid=1 --regid=1 --clear-groups "$SCRATCH/victim-job" 60 &
		V=$!
		[ "$V" = "$P" ] && break 2
		kill "$V"; wait "$V" 2>/dev/null; V=
	done
	rm -f "$MNT/a/G$try"
done
[ -n "$V" ] || fail "pid $P went to other processes in 25 tries (a machine forking that fast)"
on_exit "kill $V 2>/dev/null"
note "attacker-dd was pid $P (try $try); victim-job has it now"
sync
DONE=$(wc -l < "$SCRATCH/out.json")
until [ "$(wc -l < "$SCRATCH/out.json")" -gt $((DONE + 2)) ]; do sleep 0.1; done
kill -INT "$TOOL"; wait "$TOOL"

victim=$(to_disk_sum "$SCRATCH/out.json" victim-job "$P")
gone=$(to_disk_sum "$SCRATCH/out.json" attacker-dd "$P")
note "TO-DISK of pid $P over the run: victim-job $victim bytes, [exited] attacker-dd $gone bytes (wrote 32 MiB)"
jq -e -n --argjson v "$victim" '$v <= 1048576' > /dev/null ||
	fail "victim-job, which has pid $P now, was charged $victim bytes of the ended attacker-dd's writeback"
jq -e -n --argjson g "$gone" '$g >= 0.9 * 33554432' > /dev/null ||
	fail "the ended attacker-dd's 32 MiB are not on its [exited] row: $gone bytes ($(jq -c -s --argjson p "$P" \
		'[.[].procs[] | select(.pid == $p and (.to_disk_Bps // 0) > 0) | {comm, exited, to_disk_Bps}] | .[0:4]' "$SCRATCH/out.json"))"
echo PASS
