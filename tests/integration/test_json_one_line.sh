#!/bin/bash
# `iosched-top --json -n 1`, the README's example for a script: its one
# line has the BPF part's figures (it waits for the part, a second at
# most, before its interval begins), and they cover the line's interval,
# not more: a direct writer held to 20 MB/s on a loop device shows the
# TO-DISK the disk's own wMB/s shows in that line, within 25 % (not 20
# MB/s itself: on a busy machine fio writes less, then more to catch up;
# 15 and 42 MB/s were seen, and the disk agreed each time). Text output
# (-b -n 1) does not wait: its line says the part is loading.
# suite-budget: 20
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd jq fio losetup
setup_scratch

attach_loop 256
N=$(basename "$LOOP")
fio --name=onel --filename="$LOOP" --rw=write --bs=64k --direct=1 --ioengine=psync --rate=20m --time_based \
	--runtime=60 --output=/dev/null &
FIO=$!
disown "$FIO" # stopped at exit: no job report
on_exit "kill $FIO 2>/dev/null"
sleep 1.5

"$BIN" --json -n 1 --no-probe --procs 100000 > "$SCRATCH/one.json" 2> "$SCRATCH/err" ||
	fail "--json -n 1 exited $?: $(cat "$SCRATCH/err")"
[ "$(wc -l < "$SCRATCH/one.json")" -eq 1 ] || fail "--json -n 1 wrote $(wc -l < "$SCRATCH/one.json") lines"
on=$(jq -r '.blk.on' "$SCRATCH/one.json")
why=$(jq -r '.blk.why' "$SCRATCH/one.json")
case $on:$why in
true:*) ;;
*loading* | *starting*) fail "the one line has no BPF figures: '$why' (it did not wait for the part)" ;;
*) skip "block latency is off here: $why" ;;
esac
got=$(jq --arg n "$N" '[.procs[] | select(.comm == "fio") | .to_disk_by_disk[$n] // 0] | add // 0' "$SCRATCH/one.json")
disk=$(jq --arg n "$N" '.disks[] | select(.name == $n) | .wkB_s * 1024' "$SCRATCH/one.json")
note "one line: fio's TO-DISK on $N $got B/s; $N's own writes $disk B/s (20 MB/s asked)"
awk -v g="$got" 'BEGIN { exit !(g >= 1048576) }' || fail "fio's TO-DISK in the one line is $got B/s: it writes"
within "$got" "$disk" 25 || fail "fio's TO-DISK ($got B/s) does not match $N's writes ($disk B/s)"

"$BIN" -b -n 1 --no-probe > "$SCRATCH/one.txt" 2>&1 || fail "-b -n 1 exited $?"
grep -q "block latency off: loading" "$SCRATCH/one.txt" ||
	fail "-b -n 1 waited for the BPF part (or did not say it is loading): $(grep -m1 PID "$SCRATCH/one.txt")"
echo PASS
