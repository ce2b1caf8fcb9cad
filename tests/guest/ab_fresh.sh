#!/bin/bash
# In the guest, where bfq is: the A/B of none against bfq on a loop device
# with ext4 over the guest's virtio disk and the built-in write load, with
# up to 10 rounds: it stops after 6 when every figure is decided, and
# goes on where one is open (the paced p99 mostly is here; and a CI run
# had one phase of bfq's 13x slower than its others, so that 6 rounds
# could not decide the fresh readers).
# bfq's low_latency serves a new process's reads ahead of the writer: the
# fresh readers' job time must be decided, for bfq. The disk is back on none.
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd jq losetup mkfs.ext4 mount
setup_scratch

ext4_loop 1024
grep -qw bfq "/sys/block/$N/queue/scheduler" || fail "$N offers no bfq here: $(cat "/sys/block/$N/queue/scheduler")"
t0=$SECONDS
"$BIN" --ab none,bfq --disk "$N" --load-size 256M --load-dir "$MNT" --rounds 10 --format json > "$SCRATCH/ab.json" \
	2> "$SCRATCH/ab.err" || fail "A/B exited $?: $(cat "$SCRATCH/ab.err")"
J=$SCRATCH/ab.json
jq -e '.partial == false and (.test.rounds == 6 or .test.rounds == 10)' "$J" > /dev/null || fail "not a whole run: $(jq -c '{partial, settled_at, rounds: .test.rounds}' "$J")"
v=$(jq -c '.verdict[] | select(.figure == "job_ms")' "$J")
jq -e '.leader == "bfq" and .decided == true and .best == "bfq"' <<< "$v" > /dev/null ||
	fail "bfq's fresh readers not decided ahead: $v"
[ "$(sched_of "$N")" = none ] || fail "disk left on $(sched_of "$N")"
note "$(jq -r .text <<< "$v") ($(jq .test.rounds "$J") rounds, $((SECONDS - t0)) s)"
echo "PASS"
