#!/bin/bash
# Who is writing: a fio writer limited to 50 MiB/s (direct, on a loop
# device this test attaches) is listed in the JSON procs list with
# write_Bps within 10 % of its limit; the loop device's kernel worker that
# carries the writes to the backing file is labelled "loop", never taken
# for the top writer. (Whether fio is the top writer depends on what else
# the machine writes: not checked.) A recording of the same run carries
# fio's command line, and none for an idle process.
# suite-budget: 20
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd fio jq losetup
setup_scratch

attach_loop 512; L=$LOOP
# An idle process: nothing shows it or needs it, so its command line is not read.
cp "$(command -v sleep)" "$SCRATCH/iosched-idle"
"$SCRATCH/iosched-idle" 300 &
IDLE=$!
on_exit "kill $IDLE"
fio --name=w --filename="$L" --rw=write --bs=512k --direct=1 --ioengine=libaio --iodepth=4 --rate=50m \
	--time_based --runtime=10 --output=/dev/null &
FIO=$!
on_exit "kill $FIO"
sleep 2
# fio's own processes (the job process does the writing), found before it
# ends: another fio on the machine must not be taken for this one.
ours=$(echo $FIO $(pgrep -P $FIO) | tr ' ' ,)
"$BIN" $PROCS_ARGS --json -d 1 -n 5 --no-probe --procs 100000 --disk "$(basename "$L")" \
	--record "$SCRATCH/run.rec" > "$SCRATCH/out.json" || fail "iosched-top exited $?"
wait $FIO
tail -n 4 "$SCRATCH/out.json" > "$SCRATCH/last.json"
# In every line our fio is listed (another writer, even another loop
# device's worker, may rank higher: the test does not own the machine).
while read -r line; do
	echo "$line" | jq -e --argjson ours "[$ours]" 'any(.procs[]; .pid as $p | $ours | index($p))' >/dev/null ||
		fail "fio ($ours) is not listed: $(echo "$line" | jq -c '[.procs[:5][] | {pid, comm, kind, write_Bps}]')"
done < "$SCRATCH/last.json"
w=$(jq -s --argjson ours "[$ours]" 'map([.procs[] | select(.pid as $p | $ours | index($p))] | max_by(.write_Bps).write_Bps) | add / length' \
	"$SCRATCH/last.json")
note "fio write_Bps mean $w (limit 52428800)"
within "$w" 52428800 10 || fail "fio write_Bps $w not within 10% of 50 MiB/s"
# Our device's worker (named after its current work item, "...-loopN"):
# no file system is on it, so all it does is carry fio's writes.
jq -s -e --arg n "-$(basename "$L")\$" '[.[].procs[] | select(.comm | test($n))] | all(.kind == "loop")' "$SCRATCH/last.json" >/dev/null ||
	fail "the loop worker is not labelled: $(jq -sc --arg n "-$(basename "$L")\$" '[.[].procs[] | select(.comm | test($n)) | {comm, kind}]' "$SCRATCH/last.json")"
# The top writer is a process, never the loop worker that carries fio's
# writes; with nothing else writing it is fio.
jq -s -e 'map(.writers.dirtying_top.comm | test("loop") | not) | all' "$SCRATCH/last.json" >/dev/null ||
	fail "writers.dirtying_top is a loop worker: $(jq -sc 'map(.writers.dirtying_top)' "$SCRATCH/last.json")"
# The writers line tells what processes ask for from what disks do: fio's
# direct writes are both (at least its 50 MiB/s, less 10 %; others may add),
# and the loop device's worker, which writes them again into the backing
# file, is not counted a second time in "dirtying" (at most fio's rate plus
# what else the machine dirtied, which the processes' rows account for).
jq -s -e 'all(.[]; .writers.dirtying_MBps >= 45 and .writers.to_disks_MBps >= 45
	and (.writers.to_disks_top.disk | type == "string"))' "$SCRATCH/last.json" >/dev/null ||
	fail "writers split wrong: $(jq -sc 'map(.writers | {dirtying_MBps, to_disks_MBps, to_disks_top})' "$SCRATCH/last.json")"
# (all rows are in the JSON: --procs 100000; MB/s printed to 3 decimals: 600 B/s of rounding)
jq -s -e 'all(.[]; .writers.dirtying_MBps * 1048576 <= ([.procs[] | select(.kind == "process" or .kind == "self") | .write_Bps // 0] | add) + 600)' \
	"$SCRATCH/last.json" >/dev/null || fail "dirtying counts more than the processes' rows: $(jq -sc 'map(.writers.dirtying_MBps * 1048576 - ([.procs[] | select(.kind == "process" or .kind == "self") | .write_Bps // 0] | add))' "$SCRATCH/last.json")"
note "writers: $(tail -n1 "$SCRATCH/last.json" | jq -c '.writers | {dirtying_MBps, to_disks_MBps, to_disks_top}')"
# The recording (every row: --procs 100000) carries the command line of a
# row that did I/O, read when it first did, and none for the idle one.
tail -n +2 "$SCRATCH/run.rec" | jq -s -e --argjson ours "[$ours]" \
	'[.[2:][].procs[] | select(.pid as $p | $ours | index($p)) | select(.moved == 1 or .moved == true)]
	 | length > 0 and all(.cmdline | test("--name=w"))' >/dev/null ||
	fail "fio's recorded rows lack its command line: $(tail -n1 "$SCRATCH/run.rec" | jq -c --argjson ours "[$ours]" '[.procs[] | select(.pid as $p | $ours | index($p)) | {pid, moved, cmdline}]')"
tail -n +2 "$SCRATCH/run.rec" | jq -s -e --argjson p "$IDLE" '[.[].procs[] | select(.pid == $p)] | length > 0 and all(.cmdline == null)' >/dev/null ||
	fail "the idle process's rows: $(tail -n1 "$SCRATCH/run.rec" | jq -c --argjson p "$IDLE" '[.procs[] | select(.pid == $p) | {pid, moved, cmdline}]')"
tasks_from_is "$SCRATCH/out.json"
echo "PASS"
