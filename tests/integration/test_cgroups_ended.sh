#!/bin/bash
# Writeback of processes that ended charged to their unit: in a service
# cgroup this test makes under the v2 hierarchy (iosched-ended-PID.slice/
# burst-PID.service), a shell starts WRITERS dd's at once, each writing
# MIB MiB buffered (no fsync) into a file on an ext4 filesystem on a loop
# device of the test's own, and exits when they have; they live some tens
# of milliseconds, between two refreshes, and their pages are still dirty
# when they are gone (far below the dirty thresholds, long before the 30 s
# expiry). Then `sync` writes them. Summed over the run, the unit's
# to_disk bytes in `--json`'s cgroups[] (the BPF part: writeback charged to
# whoever dirtied the pages) are within 15 % of what the writers wrote,
# not charged to "/" or to a cgroup not known (a failure says what those
# got from the sync on). The writers' exit records name the shell's
# cgroup; their pages are written a refresh or more after they ended.
# Without the BPF part (no TO-DISK figure) the test is skipped with the
# reason.
# Every cgroup made is removed in the trap (processes killed, the rest
# moved to the root first, the deepest removed first), on failure too.
# suite-budget: 30
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd jq losetup mkfs.ext4 mount dd sync
setup_scratch

cgroup_v2

WRITERS=4 MIB=16
SLICE=iosched-ended-$$.slice
UNIT=burst-$$.service
DIRS=("$SLICE" "$SLICE/$UNIT")

ext4_loop 256
make_cgroups "${DIRS[@]}" # (after ext4_loop: its unmount runs after this removal)
sync # what others left dirty goes now, not in this test's sync

json_with_blk "$SCRATCH/out.json" -d 0.5 --no-probe --procs 5
sleep 1

# The shell joins the unit and is seen there by a refresh or two, then
# starts the writers at once and exits as soon as they have.
sh -c 'echo $$ > "$1/cgroup.procs" && sleep 1.2 || exit 1
	i=0; while [ $i -lt "$3" ]; do
		dd if=/dev/zero of="$2/f$i" bs=1M count="$4" status=none &
		i=$((i + 1))
	done; wait' sh "$CG/$SLICE/$UNIT" "$MNT" "$WRITERS" "$MIB" || fail "the writers failed"
grep -q . "$CG/$SLICE/$UNIT/cgroup.procs" && fail "a writer is still running: $(xargs < "$CG/$SLICE/$UNIT/cgroup.procs")"
dirty=$(awk '/^Dirty:/ { print $2 }' /proc/meminfo)
note "the writers ended; Dirty: $dirty kB"
sleep 1.5 # two refreshes with the writers gone
SYNC_AT=$(date +%s.%N)
sync
sleep 2 # the intervals the writeback went out in, written
kill -INT "$TOOL"
wait "$TOOL"
[ -s "$SCRATCH/out.json" ] || fail "no JSON: $(cat "$SCRATCH/err")"

wrote=$((WRITERS * MIB << 20))
td=$(cgroup_to_disk "$SCRATCH/out.json" "$SLICE/$UNIT")
note "$SLICE/$UNIT: to disk $td bytes (the writers wrote $wrote)"
jq -rs '[.[] | .procs[] | select(.comm | test("dd$")) | select(.to_disk_Bps > 0) | "\(.pid) \(.comm)"] | unique |
	"rows of ended writers with TO-DISK: \(length) (\(.[:4] | join(", ")))"' "$SCRATCH/out.json" | while read -r l; do note "$l"; done
# Where else the bytes may have gone: "/" (a process's cgroup taken as the
# root's) and "" (a cgroup not known: "unknown" in Prometheus).
elsewhere=""
for other in / ""; do
	elsewhere="$elsewhere \"$other\": $(cgroup_to_disk "$SCRATCH/out.json" "$other" "$SYNC_AT")"
done
note "from the sync on:$elsewhere"
within "$td" "$wrote" 15 ||
	fail "$UNIT's TO-DISK is $td bytes, not within 15 % of the $wrote its ended writers wrote (from the sync on:$elsewhere)"
echo "PASS"
