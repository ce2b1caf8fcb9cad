#!/bin/bash
# Block-layer latency in the full screen: a fio reader (psync QD1) on a
# loop device this test attaches. The header says block latency is on, the
# process pane's READ p50/p99 shows fio's p50/p99 and Enter on fio's row lists
# its reads on that disk; DISK names that disk. The waiting list of a disk's details is about
# requests that wait: on a fast loop device a read is in flight for 40 us,
# shorter than one look at the in-flight table, so that part uses a slow
# disk (a loop device on tests/lib/slowfs.py, 0.2 s a request) with an
# O_DIRECT writer at QD1, which must be listed with its one request.
# --no-bpf turns it off and the header says so.
# suite-budget: 10
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/tmux.sh"
need_root
need_cmd tmux fio losetup
setup_scratch

attach_loop 128 fill; L=$LOOP
N=$(basename "$L")
cp "$(command -v fio)" "$SCRATCH/fio-blk"   # a name the / filter can pick alone
"$SCRATCH/fio-blk" --name=r --filename="$L" --rw=randread --bs=4k --direct=1 --ioengine=psync --thread \
	--disk_util=0 --time_based --runtime=60 --output=/dev/null &
FIO=$!
on_exit "kill $FIO"

# 140 wide: both latency columns beside DISK (below 136 WRITE p50/p99 gives way)
TMUX_W=140 tmux_start "$BIN -d 0.5 --disk $N --no-probe 2> $SCRATCH/stderr"
wait_for "block latency: on" || fail "header does not say block latency is on"
wait_for "READ p50/p99 +WRITE p50/p99 DISK +COMMAND" || fail "no block-latency columns"
keys / f i o - b l k Enter
# READ p50/p99 is "p50/p99", each with its unit, once there are 100
# requests; DISK names the disk it reads.
wait_for "^ *$FIO root .* [0-9.]+[mu]?s/[0-9.]+[mu]?s +- +$N +fio-blk" || fail "fio's row has no READ p50/p99 with units, or not its disk"
keys Tab Enter
wait_for "process details" || fail "Enter on the process opened nothing"
wait_for "│ +$FIO fio-blk: block I/O per disk" || fail "details name another process"
wait_for "$N +read +[0-9.]+ +[0-9.]+[KMG]?i?B? +[0-9.]+ ?[um]?s" || fail "no read row for $N in the details"
wait_for "Block layer: each request of this process" || fail "details do not say what the figure measures"
keys Escape
wait_for "Processes \(all disks\)" || fail "Esc did not close the details"
keys q
[ "$(wait_exit 10)" = 0 ] || fail "exit status not 0"
kill "$FIO"; wait "$FIO" 2>/dev/null

if have_slowfs; then
	slow_loop 0.2 16; S=$SLOW
	SN=$(basename "$S")
	"$SCRATCH/fio-blk" --name=w --filename="$S" --rw=randwrite --bs=4k --direct=1 --ioengine=psync --thread \
		--disk_util=0 --time_based --runtime=60 --output=/dev/null &
	FIO=$!
	on_exit "kill $FIO; wait $FIO"
	tmux_restart "$BIN -d 0.5 --disk $SN --no-probe 2> $SCRATCH/stderr"
	wait_for "block latency: on" || fail "header does not say block latency is on (slow disk)"
	keys Enter
	wait_for "disk details" || fail "Enter on the disk opened nothing"
	wait_for "waiting longest now" || fail "disk details lack the waiting list"
	wait_for "$FIO fio-blk +1 in flight, oldest [0-9.]+ ?[um]?s" 10 || fail "fio not among the processes waiting on $SN"
	keys Escape q
	[ "$(wait_exit 10)" = 0 ] || fail "exit status not 0 (slow disk)"
else
	skip "waiting list not checked: needs python3-fusepy, /dev/fuse and fusermount"
fi

tmux_restart "$BIN -d 0.5 --disk $N --no-probe --no-bpf 2> $SCRATCH/stderr"
wait_for "block latency off: turned off \(--no-bpf\)" || fail "--no-bpf not said in the header"
screen | grep -q "READ p50/p99" && fail "READ p50/p99 shown with --no-bpf"
keys q
rc=$(wait_exit 10)
[ "$rc" = 0 ] || fail "exit status $rc with --no-bpf: $(cat "$SCRATCH/stderr")"
echo "PASS"
