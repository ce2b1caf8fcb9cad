#!/bin/bash
# A laptop's disks (issue 19): 16 read-only loop devices (as snaps are
# attached) beside a writable one this test makes. By default the 16 are
# left out of the listing and counted (JSON disks_hidden), the writable
# loop device is listed but not probed (loop devices are not in the
# default probe set), real disks come first; --all-disks lists the 16;
# a read-only one named with --disk is shown and probed. The full screen
# starts on the disk that holds /, says how many are hidden, and x shows
# them.
# suite-budget: 10
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/tmux.sh"
need_root
need_cmd jq losetup tmux
setup_scratch

RO=()
for i in $(seq 16); do
	f="$SCRATCH/snap$i.img"
	fallocate -l 8M "$f" || fail "cannot make $f"
	l=$(losetup -f --show -r "$f") || fail "losetup -r failed"
	LOOPS="$LOOPS $l"
	RO+=("$(basename "$l")")
done
attach_loop 16; RW=$(basename "$LOOP")

"$BIN" --json -n 2 -d 0.3 --procs 0 > "$SCRATCH/d.json" || fail "default run exited $?"
last=$(tail -n 1 "$SCRATCH/d.json")
for n in "${RO[@]}"; do
	echo "$last" | jq -e --arg n "$n" 'all(.disks[]; .name != $n)' >/dev/null || fail "read-only $n is listed by default"
done
echo "$last" | jq -e '.disks_hidden >= 16' >/dev/null || fail "disks_hidden: $(echo "$last" | jq .disks_hidden)"
echo "$last" | jq -e --arg n "$RW" 'any(.disks[]; .name == $n and .probe.mode == "off")' >/dev/null ||
	fail "the writable loop $RW is not listed, or is probed by default: $(echo "$last" | jq -c --arg n "$RW" '.disks[] | select(.name == $n) | .probe')"
echo "$last" | jq -e '[.disks[] | .kind | IN("loop", "dm", "md", "zram")] as $v | [range($v | length)] as $i |
	(($i | map(select($v[.])) | min) // ($v | length)) > (($i | map(select($v[.] | not)) | max) // -1)' \
	>/dev/null || fail "virtual disks listed before real ones: $(echo "$last" | jq -c '[.disks[].name]')"

"$BIN" --json -n 1 -d 0.2 --procs 0 --all-disks > "$SCRATCH/a.json" || fail "--all-disks exited $?"
for n in "${RO[@]}"; do
	jq -e --arg n "$n" 'any(.disks[]; .name == $n)' "$SCRATCH/a.json" >/dev/null || fail "--all-disks lacks $n"
done

"$BIN" --json -n 3 -d 0.5 --procs 0 --disk "${RO[0]}" > "$SCRATCH/n.json" || fail "--disk ${RO[0]} exited $?"
tail -n 1 "$SCRATCH/n.json" | jq -e --arg n "${RO[0]}" '.disks[0].name == $n and .disks[0].probe.mode != "off"' >/dev/null ||
	fail "a read-only loop named with --disk is not shown and probed: $(tail -n 1 "$SCRATCH/n.json" | jq -c '.disks[0] | {name, probe}')"

"$BIN" --json -n 2 -d 0.5 --procs 0 --probe "${RO[1]}" > "$SCRATCH/p.json" || fail "--probe ${RO[1]} exited $?"
tail -n 1 "$SCRATCH/p.json" | jq -e --arg n "${RO[1]}" 'any(.disks[]; .name == $n)' >/dev/null ||
	fail "a read-only loop named with --probe is not shown"

root=$(basename "$(dirname "$(readlink -f "/sys/dev/block/$(mountpoint -d /)")")")
[ -e "/sys/block/$root" ] || root=$(basename "$(readlink -f "/sys/dev/block/$(mountpoint -d /)")")
tmux_start "$BIN -d 0.5 --no-probe"
wait_for "^DEVICE" 10 || fail "no screen"
wait_for "[0-9]+ loop devices? .*hidden: x shows them" 5 || fail "no line that says how many are hidden"
[ -e "/sys/block/$root" ] && { wait_for "^$root: " 5 || fail "the disk holding / ($root) is not selected at start"; }
keys x
# the table shows a fifth of the screen's rows: the line under it tells
wait_for "all disks shown: x hides" 5 || fail "x did not show the hidden loop devices"
wait_for "^${RO[0]} " 5 || fail "x did not list ${RO[0]}"
keys q
[ "$(wait_exit 10)" = 0 ] || fail "exit not 0"
note "hidden by default: $(echo "$last" | jq .disks_hidden); listed: $(echo "$last" | jq -c '[.disks[].name]')"
echo "PASS"
