#!/bin/bash
# Why the probe's reads were slow: what the disk served while they waited.
# A direct fio writer (1 MiB writes, queue depth 8) floods a loop device
# this test attaches while the tool probes it; over the last 10 s, JSON
# disks[].probe.slow names the writer first, its writes as "direct", with
# at least 80 % of the bytes served while probe reads waited, and the
# probe line on the screen says "waited behind: fio-behind". Without the
# writer (before it starts) nothing is named. The Prometheus file counts
# the writer's bytes to disk by name and the probe's waits behind direct
# writes (promtool checks the file where it is installed). On the full
# screen, the disk's detail panel (Enter) lists the slowest probe reads
# with what they waited behind, and all that was served meanwhile; after a
# switch (]) the comparison line says what was served, before and after
# (direct writes in both); a replay of the recording gives the same as
# switch_compare's behind_bytes and probe.slow.slowest.
# suite-budget: 60
# suite-alone: its writer floods the disk the other tests' loop devices live on (a test beside it starved)
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/tmux.sh"
need_root
need_cmd jq losetup fio tmux
setup_scratch

attach_loop 512 fill; L=$LOOP
N=$(basename "$L")
cp "$(command -v fio)" "$SCRATCH/fio-behind"
"$BIN" --json -d 1 -n 10 --disk "$N" --probe "$N" --procs 5 --prometheus-textfile "$SCRATCH/m.prom" \
	> "$SCRATCH/out.json" &
TOOL=$!
on_exit "kill $TOOL 2>/dev/null"
sleep 3
"$SCRATCH/fio-behind" --name=w --filename="$L" --rw=write --bs=1M --iodepth=8 --ioengine=libaio --direct=1 \
	--time_based --runtime=90 --output=/dev/null &
FIO=$!
on_exit "kill $FIO 2>/dev/null"
wait "$TOOL" || fail "the tool exited $?"
tail -n1 "$SCRATCH/out.json" | jq -e '.blk.on' > /dev/null || skip "block latency is off: $(tail -n1 "$SCRATCH/out.json" | jq -r .blk.why)"
slow=$(tail -n1 "$SCRATCH/out.json" | jq -c '.disks[0].probe.slow')
note "slow: $slow"
first=$(head -n2 "$SCRATCH/out.json" | tail -n1 | jq -r '.disks[0].probe.slow.ahead[0].comm // "none"')
[ "$first" != fio-behind ] || fail "the writer was named before it started"
echo "$slow" | jq -e '.ahead[0].comm == "fio-behind" and .ahead[0].kind == "direct" and .ahead[0].share >= 0.8' \
	> /dev/null || fail "the writer is not named first with 80 % or more"

P=$SCRATCH/m.prom
grep -qE "^iosched_process_to_disk_bytes_total\{comm=\"fio-behind\"\} [1-9]" "$P" ||
	fail "no to-disk counter for fio-behind: $(grep to_disk "$P" | head -3)"
w=$(awk -v d="$N" '$1 == "iosched_probe_wait_seconds_total{disk=\"" d "\",kind=\"direct\"}" { print $2 }' "$P")
awk -v w="${w:-0}" 'BEGIN { exit !(w > 0) }' || fail "no probe wait seconds behind direct writes: $(grep probe_wait "$P" | head -6)"
note "prometheus: $(grep -E '^iosched_process_to_disk_bytes_total.*fio-behind' "$P"); waited behind direct: $w s"
if command -v promtool > /dev/null; then
	promtool check metrics < "$P" > "$SCRATCH/promtool" 2>&1 || fail "promtool: $(cat "$SCRATCH/promtool")"
fi

TMUX_W=160 tmux_start "$BIN -d 1 --disk $N --probe $N --record $SCRATCH/rec 2> $SCRATCH/stderr"
wait_for "waited behind: fio-behind [0-9]+% direct" 10 || fail "the probe line does not say what it waited behind"
keys Enter
wait_for "(^|│ )slowest probe reads, last 10 s \([0-9]+ over 10 ms\):" 5 || fail "the detail panel does not list the slowest reads"
wait_for "(^|│ )served while probe reads waited, last 10 s \([0-9.]+[KMG]\):" 2 || fail "the detail panel does not say what was served"
wait_for "(^|│) +[0-9]+ fio-behind +direct +[0-9.]+[KMG] +[0-9]+%" 2 || fail "the detail panel does not name the writer"
# each slow read listed names what it waited behind (the writer ran all along)
listed=$(screen | grep -cE "│   [0-9:]{8} +[0-9.]+m?s  ")
named=$(screen | grep -cE "│   [0-9:]{8} +[0-9.]+m?s  behind fio-behind \([0-9]+\) [0-9]+% direct")
[ "$listed" = "$named" ] || fail "a slow read is listed without the writer it waited behind: $(screen | grep -A3 'slowest probe')"
note "detail: $listed slow reads listed, each behind fio-behind"
keys Escape
from=$(sched_of "$N")
keys ']'
for _ in $(seq 300); do [ "$(sched_of "$N")" != "$from" ] && break; sleep 0.1; done
[ "$(sched_of "$N")" != "$from" ] || fail "] did not switch"
wait_for "served while probe reads waited, before->after: direct [0-9]+%->[0-9]+%" 14 ||
	fail "the switch comparison does not say what was served before and after"
sleep 11 # the after window completes
keys q
[ "$(wait_exit)" = 0 ] || fail "exit not 0: $(cat "$SCRATCH/stderr")"
"$BIN" --replay "$SCRATCH/rec" --json > "$SCRATCH/replay.json" || fail "the replay failed"
tail -n1 "$SCRATCH/replay.json" | jq -e '.disks[0] | .switch_compare.complete and
	.switch_compare.before.behind_bytes.direct > 0 and .switch_compare.after.behind_bytes.direct > 0 and
	(.probe.slow.slowest | type == "array")' > /dev/null ||
	fail "the replay lacks what was served before and after: $(tail -n1 "$SCRATCH/replay.json" | jq -c '.disks[0].switch_compare')"
echo "PASS"
