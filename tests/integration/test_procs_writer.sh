#!/bin/bash
# Who is writing: a fio writer limited to 50 MiB/s (direct, on a loop
# device this test attaches) is the top process of the JSON procs list,
# with write_Bps within 10 % of its limit; the loop device's kernel worker
# that carries the writes to the backing file is labelled "loop", not taken
# for the culprit.
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd fio jq losetup
setup_scratch

attach_loop 512; L=$LOOP
fio --name=w --filename="$L" --rw=write --bs=512k --direct=1 --ioengine=libaio --iodepth=4 --rate=50m \
	--time_based --runtime=10 --output=/dev/null &
FIO=$!
on_exit "kill $FIO"
sleep 2
"$BIN" --json -d 1 -n 5 --no-probe --disk "$(basename "$L")" > "$SCRATCH/out.json" || fail "iosched-top exited $?"
wait $FIO
fio_pids=" $(pgrep -d ' ' -x fio) "
tail -n 4 "$SCRATCH/out.json" > "$SCRATCH/last.json"
# The busiest row of kind "process" is fio (its job process) in every line.
while read -r line; do
	top=$(echo "$line" | jq -c '[.procs[] | select(.kind == "process")][0]')
	[ "$(echo "$top" | jq -r .comm)" = fio ] || fail "top process is not fio: $top"
done < "$SCRATCH/last.json"
w=$(jq -s 'map([.procs[] | select(.kind == "process")][0].write_Bps) | add / length' "$SCRATCH/last.json")
note "fio write_Bps mean $w (limit 52428800)"
within "$w" 52428800 10 || fail "fio write_Bps $w not within 10% of 50 MiB/s"
jq -s -e '[.[].procs[] | select(.comm | test("loop"))] | all(.kind == "loop")' "$SCRATCH/last.json" >/dev/null ||
	fail "the loop worker is not labelled"
jq -s -e 'map(.writers.top.comm == "fio") | all' "$SCRATCH/last.json" >/dev/null || fail "writers.top is not fio"
echo "PASS"
