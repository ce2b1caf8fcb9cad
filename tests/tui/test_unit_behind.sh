#!/bin/bash
# What a unit's reads waited behind, in its details: in cgroups this test
# makes under the v2 hierarchy, a QD1 4k O_DIRECT random reader (fio) in
# one service and a writer of 1 MiB O_DIRECT writes (fio, 4 in flight) in
# another, both on a loop device of the test's own with mq-deadline.
# Enter on the reader's unit: the details list, for the loop device, what
# the disk served while the unit's reads were in flight, with the writer's
# direct writes first, named with their unit. Enter on the writer's unit
# then: the watch moves to it (its details say its own reads, none here).
# Without the BPF part the details say why, and the test is skipped.
# Every cgroup and loop device made is removed in the trap.
# suite-budget: 40
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/tmux.sh"
need_root
need_cmd tmux fio
setup_scratch

cgroup_v2

SLICE=iosched-behind-$$.slice
READER=reader-$$.service
WRITER=writer-$$.service
make_cgroups "$SLICE" "$SLICE/$READER" "$SLICE/$WRITER"
attach_loop 512 fill
L=$(basename "$LOOP")
echo mq-deadline > "/sys/block/$L/queue/scheduler" || fail "cannot set mq-deadline on $L"

in_cgroup "$SLICE/$READER" fio --name=r --filename="$LOOP" --rw=randread --bs=4k --iodepth=1 --direct=1 \
	--size=256M --time_based --runtime=120
in_cgroup "$SLICE/$WRITER" fio --name=w --filename="$LOOP" --rw=write --bs=1M --iodepth=4 --ioengine=libaio \
	--direct=1 --offset=256M --size=256M --time_based --runtime=120

TMUX_W=160 TMUX_H=60 tmux_start "$BIN -d 0.5 --no-probe 2> $SCRATCH/stderr"
wait_for "Processes \(all disks\)" || fail "no process pane"
wait_for "block latency: (on|off)" 10 || fail "the header does not say whether block latency is on"
if ! screen | grep -q "block latency: on"; then
	skip "no BPF part here: $(screen | grep -o 'block latency: .*' | head -1)"
fi
keys U
wait_for "Units \(cgroup v2\)" || fail "U did not show the units pane"
wait_for "^$READER " 10 || fail "the reader's unit is not in the pane"
select_unit "$READER"
keys Enter
wait_for "$READER: the cgroup $SLICE/$READER" || fail "Enter did not show the reader's details"
wait_for "What its reads waited behind \(BPF" || fail "the details do not say what its reads waited behind"
# the loop device's line, then its first entry: the writer's direct writes
wait_for "^ *│? *$L, [0-9.]+[KMG]? in all:" 10 || fail "no line for $L in what the reads waited behind"
first=$(screen | grep -A1 -E "$L, [0-9.]+[KMG]? in all:" | tail -n1)
note "first entry on $L: $(echo "$first" | tr -s ' ')"
echo "$first" | grep -qE "[0-9]+% direct .* fio \([0-9]+\) in $WRITER" || fail "the writer's direct writes are not first: $first"

# The watch follows the unit shown: the writer's details now.
keys Escape U
wait_for "Units \(cgroup v2\)" || fail "U did not show the units pane again"
select_unit "$WRITER"
keys Enter
wait_for "$WRITER: the cgroup $SLICE/$WRITER" || fail "Enter did not show the writer's details"
wait_for "nothing: no read of its waited behind another request" 10 || fail "the writer's details do not say its reads waited behind nothing"
keys Escape q
[ "$(wait_exit)" = 0 ] || fail "q did not exit 0: $(cat "$SCRATCH/stderr")"
echo "PASS"
