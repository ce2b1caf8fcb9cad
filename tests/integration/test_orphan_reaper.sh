#!/bin/bash
# A child whose parent ended without waiting for it is reaped by a reaper
# above (init, or a subreaper: a service manager, a container's shim),
# whose /proc/PID/io then grows by the child's bytes: those are the
# child's, not the reaper's. root's "svc-manager" (a child subreaper, as
# systemd is) runs nobody's shell, which runs a job: the job's child
# writes 64 MiB and ends, the job ends 1.5 s later without waiting for it,
# and svc-manager reaps the zombie. Over the JSON lines svc-manager's WRITE stays under 1 MiB (it was
# shown writing the 64 MiB before), and the child's 64 MiB show (within
# 10 %) on rows of nobody's. The same with the job waiting for its child
# first (then nobody's job reaps it): svc-manager again under 1 MiB.
# suite-budget: 30
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd jq python3 setpriv
setup_scratch

mkdir -p "$SCRATCH/w"
chown 65534:65534 "$SCRATCH/w"
chmod 755 "$SCRATCH"
# svc-manager WAIT: a root subreaper that runs the job and reaps what it
# is given until the job's file says done
cat > "$SCRATCH/svc-manager" <<'PY'
#!/usr/bin/python3
import ctypes, os, sys, time
ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
open("/proc/self/comm", "w").write("svc-manager")
d, wait = sys.argv[1], sys.argv[2]
job = os.fork()
if job == 0:
    # (a shell between, which outlives the job: the job's parent, not the
    # reaper, gets what the job itself reaps)
    os.execvp("setpriv", ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--",
                          "/bin/sh", "-c", '/usr/bin/python3 "$0"/job "$0" "$1"; sleep 1', d, wait])
end = time.time() + 60
while time.time() < end:
    if os.path.exists(d + "/w/done") and end > time.time() + 1.5:
        end = time.time() + 1.5  # (the shell ends a second after the job)
    try:
        os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        pass
    time.sleep(0.05)
PY
# job DIR WAIT: its child writes 64 MiB and ends; the job waits for it
# (WAIT=1) or not, then ends after 1.5 s
cat > "$SCRATCH/job" <<'PY'
import os, sys, time
d, wait = sys.argv[1], sys.argv[2] == "1"
open("/proc/self/comm", "w").write("orphan-job")
kid = os.fork()
if kid == 0:
    open("/proc/self/comm", "w").write("orphan-kid")
    fd = os.open(d + "/w/data", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    for _ in range(64):
        os.write(fd, b"\0" * (1 << 20))
    os.close(fd)
    os._exit(0)
time.sleep(0.5)
if wait:
    os.waitpid(kid, 0)
time.sleep(1.0)
open(d + "/w/done", "w").close()
os._exit(0)
PY
chmod 755 "$SCRATCH/svc-manager" "$SCRATCH/job"

# scene WAIT: one run of the tool around one job; its verdict
scene() {
	local out=$SCRATCH/out$1.json mgr kid
	rm -f "$SCRATCH/w/done" "$SCRATCH/w/data"
	"$BIN" --json -d 0.5 --no-probe --procs 100000 > "$out" 2> "$SCRATCH/err" &
	TOOL=$!
	on_exit "kill $TOOL 2>/dev/null"
	next_line "$out"
	"$SCRATCH/svc-manager" "$SCRATCH" "$1" &
	MGR=$!
	wait "$MGR"
	[ -e "$SCRATCH/w/done" ] || fail "the job did not end"
	next_line "$out"; next_line "$out"
	kill -INT "$TOOL"; wait "$TOOL" || fail "iosched-top exited $?: $(cat "$SCRATCH/err")"
	jq -e -s 'all(.[]; .writers.exit_records)' "$out" > /dev/null ||
		fail "no exit records as root: $(tail -n1 "$out" | jq -c .writers)"
	mgr=$(jq -s --argjson p "$MGR" '[.[] | (.writers.walk_s // .interval_s) as $i | .procs[] | select(.pid == $p) | (.write_Bps // 0) * $i] | add // 0' "$out")
	kid=$(jq -s '[.[] | (.writers.walk_s // .interval_s) as $i | .procs[] | select(.user == "nobody") | (.write_Bps // 0) * $i] | add // 0' "$out")
	note "job waits for its child: $1; WRITE over the run: svc-manager $mgr bytes, nobody's rows $kid bytes (the child wrote 64 MiB = 67108864)"
	jq -e -n --argjson m "$mgr" '$m < 1048576' > /dev/null ||
		fail "svc-manager, which wrote nothing, was shown writing $mgr bytes: the child it reaped"
	within "$kid" 67108864 10 || fail "nobody's rows wrote $kid bytes, not the child's 64 MiB within 10 %"
}

scene 0
scene 1
echo PASS
