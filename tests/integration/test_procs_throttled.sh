#!/bin/bash
# THROTTLED: the time a buffered writer is paused for dirty pages
# (balance_dirty_pages), which IO-WAIT does not show. An ext4 filesystem on
# a slow loop device (tests/lib/slowfs.py) whose writeback limit is made
# small (its bdi's strict_limit and max_ratio 1%: the machine's own limits
# are gigabytes), so a 64 MiB buffered dd is throttled to the disk's pace; beside it a
# direct reader, which is never throttled. Checked against the kernel's
# own account: the writeback:balance_dirty_pages tracepoint, read from a
# tracefs instance of the test's own, whose pause= fields (ms) summed for
# the writer's pid must match the tool's figure (procs[].throttled_pct
# times each line's interval_s, summed) within 20 %. Also: the units'
# JSON (where the machine has cgroup v2 units) and the Prometheus counter
# of the writer's name carry it.
# suite-budget: 40
# suite-alone: the throttled writer floods the disk the other tests' loop devices live on
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd jq losetup mkfs.ext4 mount findmnt
setup_scratch

need_slowfs
# A slow disk (each request of its file waits 0.5 ms), with an
# ext4 filesystem; the loop device's writeback limit made small.
slow_loop 0.0005 512
N=$(basename "$SLOW") MNT=$SCRATCH/mnt
mkfs.ext4 -q -E nodiscard "$SLOW" || fail "mkfs failed"
mount_scratch "$SLOW" "$MNT"
BDI=/sys/class/bdi/$(cat "/sys/block/$N/dev")
[ -w "$BDI/strict_limit" ] && [ -w "$BDI/max_ratio" ] || skip "no per-device writeback limits here ($BDI)"
# A loop device's writeback settings outlive its detach (its bdi stays with
# /dev/loopN): put back before it is let go, or the next test on that
# number has its writes throttled at 8 MiB.
ratio0=$(cat "$BDI/max_ratio") strict0=$(cat "$BDI/strict_limit")
on_exit "echo $strict0 > $BDI/strict_limit; echo $ratio0 > $BDI/max_ratio"
echo 1 > "$BDI/max_ratio" || fail "cannot set $BDI/max_ratio"
# (6.2 on: a limit in bytes, smaller than 1 % of this machine's)
[ -w "$BDI/max_bytes" ] && { echo $((8 << 20)) > "$BDI/max_bytes" || fail "cannot set $BDI/max_bytes"; }
echo 1 > "$BDI/strict_limit" || fail "cannot set $BDI/strict_limit"

# The kernel's account: a tracefs instance of our own, removed at exit.
TR=$SCRATCH/tracefs
mkdir -p "$TR"
mount -t tracefs nodev "$TR" || skip "cannot mount tracefs"
on_exit "umount $TR"
EV=writeback/balance_dirty_pages
[ -d "$TR/events/$EV" ] || skip "this kernel has no $EV tracepoint"
INST=$TR/instances/iosched-throttled-$$
mkdir "$INST" || fail "cannot make a tracefs instance"
on_exit "rmdir $INST"
echo 8192 > "$INST/buffer_size_kb"

dd if=/dev/urandom of="$MNT/r" bs=1M count=16 status=none conv=fsync || fail "cannot write the reader's file"
W=throttledw
cp "$(command -v dd)" "$SCRATCH/$W"
P=$SCRATCH/run.prom
"$BIN" --json -d 0.5 --no-probe --procs 100000 --prometheus-textfile "$P" > "$SCRATCH/out.json" 2> "$SCRATCH/err" &
TOOL=$!
on_exit "kill $TOOL 2>/dev/null"
for _ in $(seq 100); do tail -n1 "$SCRATCH/out.json" 2>/dev/null | jq -e '.blk.on' > /dev/null 2>&1 && break; sleep 0.1; done
tail -n1 "$SCRATCH/out.json" | jq -e '.blk.on' > /dev/null || skip "block latency is off: $(tail -n1 "$SCRATCH/out.json" | jq -r .blk.why)"
sleep 1 # a reading with the BPF part's figures: the one the writer's first pause is measured from

echo 1 > "$INST/events/$EV/enable"
dd if="$MNT/r" of=/dev/null bs=4k iflag=direct status=none &
READER=$!
"$SCRATCH/$W" if=/dev/zero of="$MNT/f" bs=1M count=64 status=none &
WRITER=$!
wait "$WRITER" || fail "the writer failed"
wait "$READER"
echo 0 > "$INST/events/$EV/enable"
sleep 1.5
kill -INT "$TOOL"
wait "$TOOL" || fail "iosched-top exited $?: $(cat "$SCRATCH/err")"

# The tracepoint's pauses of the writer, in seconds (its lines read
# "throttledw-PID [CPU] ... pause=MS ...").
trace=$(awk -v p="-$WRITER " 'index($0, p) && match($0, / pause=-?[0-9]+/) {
	v = substr($0, RSTART + 7, RLENGTH - 7) + 0; if (v > 0) s += v; n++ }
	END { printf "%.3f %d\n", s / 1000, n }' "$INST/trace")
trace_s=${trace% *}
events=${trace#* }
# The tool's: each line's share of its interval, summed.
tool_s=$(jq -s --argjson p "$WRITER" '[.[] | .interval_s as $i | .procs[] | select(.pid == $p)
	| (.throttled_pct // 0) / 100 * $i] | add // 0' "$SCRATCH/out.json")
reader=$(jq -s --argjson p "$READER" '[.[] | .procs[] | select(.pid == $p) | .throttled_pct] | map(select(. != null)) | max // 0' \
	"$SCRATCH/out.json")
note "$W paused $trace_s s in $events tracepoint events; the tool counted $tool_s s; the reader's largest share: $reader %"
awk -v t="$trace_s" 'BEGIN { exit !(t >= 1) }' ||
	skip "the writer was paused only $trace_s s: this kernel did not throttle it (nothing to compare)"
within "$tool_s" "$trace_s" 20 || fail "the tool counted $tool_s s of pauses, the tracepoint $trace_s s"
awk -v r="$reader" 'BEGIN { exit !(r == 0) }' || fail "the direct reader shows $reader % throttled"
jq -e -s '[.[] | .procs[] | select(.pid == '"$WRITER"') | has("throttled_pct")] | all' "$SCRATCH/out.json" > /dev/null ||
	fail "a line of the writer has no throttled_pct"

# The unit and Prometheus.
if jq -e -s '[.[] | .cgroups[]?] | length > 0' "$SCRATCH/out.json" > /dev/null; then
	jq -e -s '[.[] | .cgroups[] | .throttled_pct | select(. != null and . > 0)] | length > 0' "$SCRATCH/out.json" \
		> /dev/null || fail "no unit carries the writer's pauses (cgroups[].throttled_pct)"
fi
prom=$(awk -v w="$W" 'index($0, "iosched_process_throttled_seconds_total{comm=\"" w "\"}") == 1 { print $2 }' "$P")
[ -n "$prom" ] || fail "no Prometheus series of $W's pauses: $(grep throttled "$P" | head -5)"
note "Prometheus: $prom s"
within "$prom" "$trace_s" 20 || fail "the Prometheus counter of $W holds $prom s, the tracepoint $trace_s s"
echo PASS
