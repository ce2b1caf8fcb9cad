#!/bin/bash
# Bytes per cgroup v2: cgroups this test makes under the v2 hierarchy
# (found in /proc/self/mountinfo: /sys/fs/cgroup on pure v2 machines,
# /sys/fs/cgroup/unified on hybrid ones), named as systemd names them — a
# slice with two services, a session-N.scope, and two container look-alikes
# where no manager makes containers (user@N.service/user.slice/libpod-<64
# hex>.scope and docker-<64 hex>.scope, in the slice: scopes of those
# names, named by them; the managers' own places are shared cgroups this
# test leaves alone, tests/unit/read/test_cgroup.c checks them), every name carrying this test's
# pid so two runs side by side never meet
# — with writers in them on an ext4 filesystem on a loop device of its
# own: direct writes (dd oflag=direct) in one service, the scope and the
# container, a buffered writer that ends with fsync in the other service.
# Summed over the run, each cgroup's write bytes in `--json`'s cgroups[]
# are within 5 % of what its writer wrote; the buffered writer's TO-DISK
# within 20 % (with the BPF part); the look-alikes by their own names;
# services name their slice as parent,
# and the pressure fields are there.
# Every cgroup made is removed in the trap (its processes killed, the
# rest moved back to the root first, the deepest removed first): nothing
# is left behind, on failure too.
# suite-budget: 40
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd jq losetup mkfs.ext4 mount dd od
setup_scratch

cgroup_v2

SLICE=iosched-units-$$.slice
HEX=$(printf '%08x' $$)$(head -c 28 /dev/urandom | od -An -tx1 | tr -d ' \n')
PODS=$SLICE/user@$$.service/user.slice
DIRS=("$SLICE" "$SLICE/writer-a-$$.service" "$SLICE/writer-b-$$.service" "$SLICE/session-$$.scope"
	"$SLICE/docker-$HEX.scope" "$SLICE/user@$$.service" "$PODS" "$PODS/libpod-$HEX.scope")
[ ${#HEX} -eq 64 ] || fail "the container id is ${#HEX} hex digits, not 64"

ext4_loop 512
make_cgroups "${DIRS[@]}" # (after ext4_loop: its unmount runs after this removal)

"$BIN" --json -d 0.5 --no-probe --procs 5 > "$SCRATCH/out.json" 2> "$SCRATCH/err" &
TOOL=$!
on_exit "kill $TOOL 2>/dev/null"
for _ in $(seq 100); do tail -n1 "$SCRATCH/out.json" 2>/dev/null | jq -e '.blk.on' > /dev/null 2>&1 && break; sleep 0.1; done
BLK=$(tail -n1 "$SCRATCH/out.json" | jq -r '.blk.on')

# writer CGROUP MIB DD-FLAGS: a dd of MIB MiB into the cgroup's own file,
# started from a shell that joined the cgroup a second earlier (so a
# reading sees it there before it writes).
writer() {
	sh -c 'echo $$ > "$1/cgroup.procs" && sleep 1 && exec dd if=/dev/zero of="$2" bs=1M count="$3" status=none $4' \
		sh "$CG/$1" "$MNT/$(basename "$1")" "$2" "$3" &
	PIDS+=($!)
}
PIDS=()
writer "$SLICE/writer-a-$$.service" 64 oflag=direct
writer "$SLICE/writer-b-$$.service" 48 conv=fsync
writer "$SLICE/session-$$.scope" 32 oflag=direct
writer "$PODS/libpod-$HEX.scope" 40 oflag=direct
writer "$SLICE/docker-$HEX.scope" 16 oflag=direct
for p in "${PIDS[@]}"; do wait "$p" || fail "a writer failed"; done
sleep 2 # the intervals the writers ended in, written
kill -INT "$TOOL"
wait "$TOOL"
[ -s "$SCRATCH/out.json" ] || fail "no JSON: $(cat "$SCRATCH/err")"

# sums PATH: write bytes, to-disk bytes, ticks with the path, with a
# pressure number, its unit, its parent
sums() {
	jq -rs --arg p "$1" '[.[] | .interval_s as $dt | (.writers.walk_s // $dt) as $ws | .cgroups[] | select(.path == $p) |
		. + {dt: $dt, ws: $ws}] |
		"\(map(.write_Bps * .ws) | add // 0) \(map((.to_disk_Bps // 0) * .dt) | add // 0) \(length)
		 \(map(select(.io_some_pct | type == "number")) | length) \(.[0].unit) \(.[0].parent)"' "$SCRATCH/out.json" | xargs
}
check() { # PATH MIB UNIT [PARENT]
	local w td n npsi unit parent
	read -r w td n npsi unit parent <<< "$(sums "$1")"
	note "$1: wrote $w bytes in $n readings (of $(($2 << 20))), to disk $td; unit $unit, parent $parent"
	within "$w" $(($2 << 20)) 5 || fail "$1: $w bytes written, not within 5 % of $(($2 << 20))"
	[ "$unit" = "$3" ] || fail "$1: unit '$unit', not '$3'"
	[ "$parent" = "${4:-$SLICE}" ] || fail "$1: parent '$parent', not ${4:-$SLICE}"
	[ "$npsi" -gt 0 ] || fail "$1: no reading had io_some_pct"
}
check "$SLICE/writer-a-$$.service" 64 "writer-a-$$.service"
check "$SLICE/writer-b-$$.service" 48 "writer-b-$$.service"
check "$SLICE/session-$$.scope" 32 "session-$$.scope"
check "$PODS/libpod-$HEX.scope" 40 "libpod-$HEX.scope" "$PODS"
check "$SLICE/docker-$HEX.scope" 16 "docker-$HEX.scope"
if [ "$BLK" = true ]; then
	read -r _ td _ <<< "$(sums "$SLICE/writer-b-$$.service")"
	within "$td" $((48 << 20)) 20 || fail "the buffered writer's TO-DISK is $td bytes, not within 20 % of $((48 << 20))"
else
	note "no BPF part: TO-DISK not checked"
fi
jq -e '.cgroups_why | type == "string"' <(tail -n1 "$SCRATCH/out.json") > /dev/null || fail "no cgroups_why"
jq -e '[.cgroups[] | has("bfq_weight") and has("source") and has("procs") and has("io_full_pct")] | all' \
	<(tail -n1 "$SCRATCH/out.json") > /dev/null || fail "a cgroup lacks a field: $(tail -n1 "$SCRATCH/out.json" | jq -c '.cgroups[0]')"
echo "PASS"
