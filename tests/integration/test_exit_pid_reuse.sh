#!/bin/bash
# An ended process's exit records stay its own when its pid goes to
# another process at once: the exit records tell processes apart by when
# they started, not by pid alone. Two scenes, -d 1, each with nobody's
# process X (pid P) and then uid 1's "victim-job", a sleep that gets P
# (ns_last_pid stands in for a user cycling pids until a service forks)
# and ends 1.5 s later:
#  - X ("attacker-th") ends its main thread first; a worker then writes
#    64 MiB and ends the process (the leader's record first, the worker's
#    last: once the worker's opened an entry that victim-job completed);
#  - X ("attacker-dd") writes 64 MiB and ends, and victim-job is listed
#    before X's record is settled (X once waited for pid P to go, and was
#    settled against victim-job's row).
# In both, victim-job's rows write at most 1 MiB, and X's at least 90 % of
# its 64 MiB.
# suite-budget: 20
# suite-alone: it rewinds the kernel's pid counter (ns_last_pid): a test beside it would have its processes get pids just freed, which a pid cycler cannot do that fast (a run of test_procs_exited beside it counted 199 of its 200 dd processes)
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd jq setpriv python3
[ -w /proc/sys/kernel/ns_last_pid ] || skip "no /proc/sys/kernel/ns_last_pid (CONFIG_CHECKPOINT_RESTORE)"
case $(uname -m) in x86_64 | aarch64) ;; *) skip "the main-thread-first writer knows SYS_exit on x86_64 and aarch64 only" ;; esac
setup_scratch

mkdir -p "$SCRATCH/a"; chown 65534:65534 "$SCRATCH/a"; chmod 755 "$SCRATCH" "$SCRATCH/a"
cat > "$SCRATCH/attacker-th" <<'PY'
#!/usr/bin/python3
# The main thread ends first; a worker then writes MIB MiB to FILE and
# ends the process.
import ctypes, os, sys, threading, time
path, mib = sys.argv[1], int(sys.argv[2])
def work():
    time.sleep(0.3)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    block = b"\0" * (1 << 20)
    for _ in range(mib):
        os.write(fd, block)
    os.fsync(fd)
    os._exit(0)
threading.Thread(target=work).start()
ctypes.CDLL(None).syscall({"x86_64": 60, "aarch64": 93}[os.uname().machine], 0)  # SYS_exit: this thread only
PY
cp "$(command -v dd)" "$SCRATCH/attacker-dd"; cp "$(command -v sleep)" "$SCRATCH/victim-job"
chmod 755 "$SCRATCH/attacker-th" "$SCRATCH/attacker-dd" "$SCRATCH/victim-job"

"$BIN" --json -d 1 --no-probe --procs 100000 > "$SCRATCH/out.json" 2> "$SCRATCH/err" &
TOOL=$!
on_exit "kill $TOOL 2>/dev/null"
next_line "$SCRATCH/out.json"
jq -e '.writers.exit_records' <(tail -n1 "$SCRATCH/out.json") > /dev/null ||
	skip "no exit records: $(tail -n1 "$SCRATCH/out.json" | jq -c .writers)"

# give_pid P: uid 1's victim-job gets pid P and ends 1.5 s later; V its pid.
give_pid() {
	V=
	for _ in 1 2 3 4 5; do
		echo $(($1 - 1)) > /proc/sys/kernel/ns_last_pid
		setpriv --reuid=1 --regid=1 --clear-groups "$SCRATCH/victim-job" 1.5 &
		V=$!
		[ "$V" = "$1" ] && return 0
		kill "$V"; wait "$V" 2>/dev/null
	done
	V=
}

# scene WRITER ARGS...: X runs as nobody and ends; P goes to victim-job.
# Another process may take P first (the suite runs beside others): a new
# X then. Sets P.
scene() {
	for try in 1 2 3 4 5; do
		rm -f "$SCRATCH/a/out"
		setpriv --reuid=65534 --regid=65534 --clear-groups "$@" &
		P=$!
		wait $P || fail "$1 failed"
		give_pid "$P" && break
	done
	[ -n "$V" ] || fail "pid $P went to other processes in 25 tries (a machine forking that fast)"
	wait "$V"
	rm -f "$SCRATCH/a/out"
	next_line "$SCRATCH/out.json"; next_line "$SCRATCH/out.json"
}
# written COMM PID: the bytes the rows of COMM with pid PID wrote (while
# listed, then on its exit row)
written() {
	jq -s --arg c "$1" --argjson p "$2" '[.[] | (.writers.walk_s // .interval_s) as $i | .procs[]
		| select(.comm == $c and .pid == $p) | (.write_Bps // 0) * $i] | add // 0' "$SCRATCH/out.json"
}
check() {
	local x v
	x=$(written "$1" "$P"); v=$(written victim-job "$P")
	note "$1 was pid $P, then victim-job: their rows wrote $x and $v bytes (X wrote 64 MiB)"
	jq -e -n --argjson v "$v" '$v <= 1048576' > /dev/null ||
		fail "victim-job, which got pid $P after $1, wrote $v bytes: $1's ($(jq -c -s --argjson p "$P" \
			'[.[].procs[] | select(.pid == $p and .exited) | {comm, user, write_Bps}]' "$SCRATCH/out.json"))"
	jq -e -n --argjson x "$x" '$x >= 0.9 * 67108864' > /dev/null || fail "$1's 64 MiB are not on its rows: $x bytes"
}

scene "$SCRATCH/attacker-th" "$SCRATCH/a/out" 64
check attacker-th
scene "$SCRATCH/attacker-dd" if=/dev/zero of="$SCRATCH/a/out" bs=1M count=64 oflag=direct status=none
check attacker-dd
kill -INT "$TOOL"; wait "$TOOL" || fail "iosched-top exited $?: $(cat "$SCRATCH/err")"
echo PASS
