#!/bin/bash
# The process pane's two ways of reading the tasks agree: with the BPF
# part the tasks and their counters come from the kernel's task walk
# (JSON writers.tasks_from "bpf", from the third reading on), with
# --no-bpf from /proc ("proc"). Two instances run side by side while the
# same workload runs: a dd that writes 48 MiB (fsync'd), a dd that reads
# 32 MiB with O_DIRECT, and a process whose two threads write 16 MiB each
# and stay a few seconds more (a process's figure is the sum of its
# threads'), and a process whose thread writes 4 MiB and ends while the
# process stays (most likely between two walks: its bytes are the ended
# threads' counters, which the walk reads when a thread has started since). Summed over the run, each workload process's bytes read and
# written agree within 1 % between the two, and are what the workload did
# (within 5 %); in thread mode (--threads), the two threads' rows agree
# within 1 % too.
# suite-budget: 40
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd jq dd python3
setup_scratch

dd if=/dev/urandom of="$SCRATCH/src" bs=1M count=32 status=none conv=fsync || fail "cannot write the source file"
# names of their own: the rows of processes that end in one interval are
# one per command and parent
cp "$(command -v dd)" "$SCRATCH/dd-write"
cp "$(command -v dd)" "$SCRATCH/dd-read"
cat > "$SCRATCH/two-threads" <<'PY'
#!/usr/bin/python3
# two threads write 16 MiB each (fsync'd), then the process stays 3 s
import os, sys, threading, time
def write(name):
    with open(name, "wb") as f:
        for _ in range(16):
            f.write(b"x" * 1048576)
        f.flush()
        os.fsync(f.fileno())
    time.sleep(3)
ts = [threading.Thread(target=write, args=(os.path.join(sys.argv[1], "t%d" % i),)) for i in range(2)]
for t in ts: t.start()
for t in ts: t.join()
PY
chmod +x "$SCRATCH/two-threads"
cat > "$SCRATCH/thread-ends" <<'PY'
#!/usr/bin/python3
# a thread writes 4 MiB and ends; the process stays, idle, until killed
# (its figure then holds what its ended thread did: /proc/PID/io adds it)
import os, sys, threading, time
def write(name):
    with open(name, "wb") as f:
        for _ in range(4):
            f.write(b"x" * 1048576)
time.sleep(0.3)
t = threading.Thread(target=write, args=(os.path.join(sys.argv[1], "te"),))
t.start()
t.join()
time.sleep(60)
PY
chmod +x "$SCRATCH/thread-ends"

# run MODE: both instances around the workload; MODE is "" or --threads
run() {
	local mode=$1 tag=${1:-procs}
	tag=${tag#--}
	"$BIN" --json -d 0.5 --no-probe --procs 100000 $mode > "$SCRATCH/bpf.$tag.json" 2> "$SCRATCH/bpf.$tag.err" &
	A=$!
	"$BIN" --json -d 0.5 --no-probe --procs 100000 --no-bpf $mode > "$SCRATCH/proc.$tag.json" 2> "$SCRATCH/proc.$tag.err" &
	B=$!
	on_exit "kill $A $B 2>/dev/null"
	# the walk is used from the third reading on
	for _ in $(seq 100); do
		tail -n1 "$SCRATCH/bpf.$tag.json" 2>/dev/null | jq -e '.writers.tasks_from == "bpf"' > /dev/null 2>&1 && break
		sleep 0.1
	done
	tail -n1 "$SCRATCH/bpf.$tag.json" | jq -e '.writers.tasks_from == "bpf"' > /dev/null ||
		skip "the task walk is off: $(tail -n1 "$SCRATCH/bpf.$tag.json" | jq -r .writers.task_walk_why)"
	sleep 0.6
	"$SCRATCH/dd-write" if=/dev/zero of="$SCRATCH/w" bs=1M count=48 conv=fsync status=none &
	W=$!
	"$SCRATCH/dd-read" if="$SCRATCH/src" of=/dev/null bs=1M iflag=direct status=none &
	R=$!
	"$SCRATCH/two-threads" "$SCRATCH" &
	F=$!
	"$SCRATCH/thread-ends" "$SCRATCH" &
	T=$!
	on_exit "kill $T 2>/dev/null"
	wait $W $R $F || fail "the workload failed"
	sleep 1.5 # its last interval in both
	kill -INT $A $B
	wait $A || fail "the BPF instance exited $?: $(cat "$SCRATCH/bpf.$tag.err")"
	wait $B || fail "the /proc instance exited $?: $(cat "$SCRATCH/proc.$tag.err")"
	jq -e '.writers.tasks_from == "proc"' <(tail -n1 "$SCRATCH/proc.$tag.json") > /dev/null || fail "--no-bpf did not read /proc"
	kill $T # (after the instances: its bytes are counted while it lives)
	wait $T 2>/dev/null
}

# sum FILE PID FIELD [THREADS]: bytes over the run of the rows of PID
sum() {
	jq -s --argjson p "$2" --arg f "$3" '[.[] | (.writers.walk_s // .interval_s) as $t | .procs[] | select(.pid == $p) | (.[$f] // 0) * $t] | add // 0' "$1"
}
agree() { # agree WHAT A B: within 1 %
	awk -v a="$2" -v b="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; m = a > b ? a : b; exit !(m > 0 && d <= 0.01 * m) }' ||
		fail "$1: the task walk says $2, /proc says $3"
}

run ""
for w in "W write_Bps $((48 << 20))" "R read_Bps $((32 << 20))" "F write_Bps $((32 << 20))" "T write_Bps $((4 << 20))"; do
	set -- $w
	pid=${!1}
	a=$(sum "$SCRATCH/bpf.procs.json" "$pid" "$2")
	b=$(sum "$SCRATCH/proc.procs.json" "$pid" "$2")
	note "$1 ($pid) $2: walk $a, /proc $b, did $3"
	agree "$1 $2" "$a" "$b"
	within "$a" "$3" 5 || fail "$1: $a bytes, not its $3 within 5 %"
done

run --threads
F_BPF=$(jq -s --argjson p "$F" '[.[] | (.writers.walk_s // .interval_s) as $t | .procs[] | select(.pid == $p and .tid != $p) | {tid, b: ((.write_Bps // 0) * $t)}]
	| group_by(.tid) | map({tid: .[0].tid, b: (map(.b) | add)}) | sort_by(.tid)' "$SCRATCH/bpf.threads.json")
F_PROC=$(jq -s --argjson p "$F" '[.[] | (.writers.walk_s // .interval_s) as $t | .procs[] | select(.pid == $p and .tid != $p) | {tid, b: ((.write_Bps // 0) * $t)}]
	| group_by(.tid) | map({tid: .[0].tid, b: (map(.b) | add)}) | sort_by(.tid)' "$SCRATCH/proc.threads.json")
note "the two threads: walk $(echo "$F_BPF" | jq -c .), /proc $(echo "$F_PROC" | jq -c .)"
[ "$(echo "$F_BPF" | jq 'map(select(.b > 0)) | length')" -ge 2 ] || fail "the writing threads are not listed by the walk"
for tid in $(echo "$F_BPF" | jq '.[] | select(.b > 0) | .tid'); do
	agree "thread $tid" "$(echo "$F_BPF" | jq --argjson t "$tid" '.[] | select(.tid == $t) | .b')" \
		"$(echo "$F_PROC" | jq --argjson t "$tid" '(.[] | select(.tid == $t) | .b) // 0')"
done
echo "PASS"
