#!/bin/bash
# In the guest, where null_blk is a module: --demo-disk makes an HDD-like
# null_blk disk with a writer on it and shows it with the probe reading it.
#  - switched from outside (as s would) between none, bfq and mq-deadline,
#    16 s each, the probe reads under the writer's load in every phase:
#    its p99 over the phase's last 10 s at least twice the disk's 4 ms a
#    request (the schedulers' p99 are noted; measured here they were apart
#    by 1.25x to 2.5x from run to run: doc/lab.md);
#  - after the run: no configfs directory, no disk, no writer, null_blk
#    unloaded when the run loaded it;
#  - the full screen in tmux, its terminal lost (SIGHUP): nothing left;
#  - a run killed (SIGKILL): its writer ends with it, and the next run
#    says it removed the disk left behind;
#  - a run in another pid namespace (a container's), with a pid that is
#    no process here: this namespace's next run leaves its disk alone.
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd jq tmux
setup_scratch

CFG=/sys/kernel/config/nullb
was_loaded=$([ -d /sys/module/null_blk ] && echo 1 || echo 0)
left() { # what a demo run left: configfs directories, disks, writers
	ls "$CFG" 2>/dev/null | grep '^iosched-demo-'
	ls /sys/block | grep -E '^iosched-demo-'
	pgrep -x iosched-demo-wr
}
NS=$(printf '%x' "$(stat -L -c %i /proc/self/ns/pid)")
demo_disk_of() { # PID: the disk of run PID (of this pid namespace), once it is there
	local i
	for i in $(seq 100); do
		[ -e "/sys/block/iosched-demo-$1-$NS" ] && { echo "iosched-demo-$1-$NS"; return; }
		sleep 0.1
	done
}
on_exit 'pkill -KILL -f "iosched-top --demo-disk" 2>/dev/null; for d in /sys/kernel/config/nullb/iosched-demo-*; do [ -d "$d" ] && echo 0 > "$d/power" && rmdir "$d"; done'

# p99 on none, bfq, then mq-deadline: 16 s each (the last 10 s wholly in the phase)
"$BIN" --demo-disk --json -d 1 -n 51 --probe-rate 50 > "$SCRATCH/demo.json" 2> "$SCRATCH/demo.err" &
P=$!
N=$(demo_disk_of $P)
[ -n "$N" ] || fail "no demo disk appeared: $(cat "$SCRATCH/demo.err")"
pgrep -x iosched-demo-wr > /dev/null || fail "no writer runs"
for s in none bfq mq-deadline; do
	echo "$s" > "/sys/block/$N/queue/scheduler" || fail "cannot set $s on $N"
	sleep 16
done
wait "$P" || fail "the demo run exited $?: $(cat "$SCRATCH/demo.err")"
# each phase's last line: its 10 s window wholly in the phase
p99() { jq -c --arg n "$N" --arg s "$1" 'select(.disks) | .disks[] | select(.name == $n and .scheduler == $s) | .probe_10s.p99_us' \
	"$SCRATCH/demo.json" | grep -v null | tail -n 1; }
none=$(p99 none) bfq=$(p99 bfq) dl=$(p99 mq-deadline)
note "probe p99 over 10 s: none $none us, bfq $bfq us, mq-deadline $dl us"
[ "$(printf '%s\n' "$none" "$bfq" "$dl" | grep -vc '^$')" = 3 ] || fail "a phase has no p99: none '$none', bfq '$bfq', mq-deadline '$dl'"
for v in "$none" "$bfq" "$dl"; do
	awk -v a="$v" 'BEGIN { exit !(a >= 8000) }' || fail "a p99 of $v us: the reads are not under the writer's load (4 ms a request)"
done
[ -z "$(left)" ] || fail "left after the run: $(left)"
now_loaded=$([ -d /sys/module/null_blk ] && echo 1 || echo 0)
[ "$now_loaded" = "$was_loaded" ] || fail "null_blk loaded before: $was_loaded, after: $now_loaded"

# the full screen, its terminal lost
tmux -L demo -f /dev/null new-session -d -x 120 -y 40 "exec $BIN --demo-disk"
N=""
for _ in $(seq 200); do N=$(ls /sys/block | grep -m1 '^iosched-demo-'); [ -n "$N" ] && break; sleep 0.1; done
[ -n "$N" ] || fail "the full screen made no demo disk: $(tmux -L demo capture-pane -p)"
P=${N#iosched-demo-}
P=${P%%-*}
for _ in $(seq 100); do tmux -L demo capture-pane -p | grep -q "^$N " && break; sleep 0.1; done
tmux -L demo capture-pane -p | grep -q "^$N " || fail "the full screen does not show $N: $(tmux -L demo capture-pane -p)"
tmux -L demo kill-server
for _ in $(seq 100); do kill -0 "$P" 2>/dev/null || break; sleep 0.1; done
kill -0 "$P" 2>/dev/null && fail "the full screen still runs after its terminal was lost"
[ -z "$(left)" ] || fail "left after SIGHUP: $(left)"
note "full screen: $N shown; terminal lost: nothing left"

# killed: the next run removes what it left
"$BIN" --demo-disk --json -d 1 -n 100 > /dev/null 2>&1 &
P=$!
N=$(demo_disk_of $P)
[ -n "$N" ] || fail "no demo disk for the run to be killed"
kill -KILL "$P"; wait "$P" 2>/dev/null
sleep 0.5
pgrep -x iosched-demo-wr > /dev/null && fail "the writer outlived its killed run"
"$BIN" --demo-disk --json -d 0.5 -n 2 > /dev/null 2> "$SCRATCH/next.err" || fail "the next run exited $?: $(cat "$SCRATCH/next.err")"
grep -q "removed demo disk(s) left by a run that was killed: $N" "$SCRATCH/next.err" ||
	fail "the next run did not say it removed $N: $(cat "$SCRATCH/next.err")"
[ -z "$(left)" ] || fail "left after the next run: $(left)"
note "SIGKILL: the writer ended with the run; the next run removed $N"

# a container's run: its own pid namespace, where it is pid 32000 (no
# process here has that pid); this namespace's run must not take its disk
# for a killed run's
unshare -pf --mount-proc sh -c "echo 31999 > /proc/sys/kernel/ns_last_pid; $BIN --demo-disk --json -d 1 -n 30 > /dev/null 2>&1 & wait" &
C=$!
CN=""
for _ in $(seq 100); do CN=$(ls /sys/block | grep -m1 '^iosched-demo-32000-'); [ -n "$CN" ] && break; sleep 0.1; done
[ -n "$CN" ] || fail "the run in its own pid namespace made no disk iosched-demo-32000-*: $(ls /sys/block)"
[ "$CN" != "iosched-demo-32000-$NS" ] || fail "the other namespace's disk is named as this one's: $CN"
"$BIN" --demo-disk --json -d 0.5 -n 2 > /dev/null 2> "$SCRATCH/ns.err" || fail "this namespace's run exited $?: $(cat "$SCRATCH/ns.err")"
[ -e "/sys/block/$CN" ] || fail "this namespace's run removed the other namespace's live disk $CN: $(cat "$SCRATCH/ns.err")"
pkill -TERM -f "iosched-top --demo-disk --json -d 1 -n 30"
wait "$C"
for _ in $(seq 50); do [ -e "/sys/block/$CN" ] || break; sleep 0.1; done
[ -z "$(left)" ] || fail "left after the other namespace's run: $(left)"
note "another pid namespace's disk $CN kept by this namespace's run, removed by its own"
echo "PASS"
