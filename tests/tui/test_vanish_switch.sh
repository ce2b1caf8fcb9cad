#!/bin/bash
# A disk that goes away while a switch on it is still in the kernel: a
# loop device on the slow FUSE file system (0.5 s a request) with a QD16
# writer, so the switch drains for seconds. While it is pending the writer
# is stopped and the loop device detached (the kernel clears it once the
# last opener, the probe, lets go). The tool must end the switch with an
# event, drop the disk with a "disk removed" event, keep drawing, and exit
# 0 with no child left behind, and the device's queue back on none.
# suite-alone: it watches a loop device's name go (or come): a test beside it may attach another device under the same name
# suite-budget: 20
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/tmux.sh"
need_root
need_cmd tmux losetup fio
need_slowfs
setup_scratch

slow_loop 0.5 16; L=$SLOW
N=$(basename "$L")
fio --name=w --filename="$L" --rw=randwrite --bs=4k --direct=1 --ioengine=libaio --iodepth=16 \
	--time_based --runtime=120 --output=/dev/null &
FIO=$!
on_exit "kill $FIO; wait $FIO"
sleep 2 # let the writer fill the queue

tmux_start "$BIN -d 0.5 --disk $N 2> $SCRATCH/stderr"
wait_for "^$N +loop" || fail "no row for $N"
keys ']'
wait_for "^$N +loop +(yes +|no +)?none -> mq-deadline [0-9.]+s" 5 || fail "the switch is not shown as pending"
kill "$FIO"; wait "$FIO" 2>/dev/null
losetup -d "$L" || fail "cannot detach $L"
LOOPS=${LOOPS/ $L/} # detached: its number may soon be another's
# Gone within a refresh or two of the kernel clearing it (the probe lets
# go within a second, the queue drains at 0.5 s a request).
gone=0
for _ in $(seq 300); do
	[ "$(cat "/sys/block/$N/size" 2>/dev/null || echo 0)" = 0 ] && ! screen | grep -qE "^$N +loop" && { gone=1; break; }
	sleep 0.1
done
[ "$gone" = 1 ] || fail "$N still on screen 30 s after the detach (size $(cat "/sys/block/$N/size"))"
keys l
wait_for "$N +disk removed" 5 || fail "no 'disk removed' in the log"
wait_for "$N +scheduler (none -> mq-deadline in [0-9.]+ ms|: cannot set)" 20 || fail "the pending switch never ended with an event"
# A switch that ended after the detach is kept by the device's queue: put
# it back while the number is still nobody's (this test runs alone in the
# suite), as every test leaves a loop device on none.
losetup "$L" > /dev/null 2>&1 || echo none > "/sys/block/$N/queue/scheduler"
note "$(screen | grep -oE "$N +scheduler .*" | head -n1 | sed 's/ *│.*//')"
c1=$(clock); sleep 1.2; c2=$(clock)
[ "$c1" != "$c2" ] || fail "the screen stopped after the disk went"
TOOL=$(pgrep -o -f -x "$BIN -d 0.5 --disk $N") || fail "cannot find the tool's pid"
kids=$(pgrep -P "$TOOL" | tr '\n' ' ')
keys Escape q
rc=$(wait_exit 10)
[ "$rc" = 0 ] || fail "exit status $rc: $(cat "$SCRATCH/stderr")"
sleep 0.5
# shellcheck disable=SC2086 # a list of pids
left=$(running $kids)
[ "$left" = 0 ] || fail "$left child process(es) of the tool still running"
echo "PASS"
