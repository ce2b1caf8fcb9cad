#!/bin/bash
# Writeback of writers that ended charged to the unit they dirtied the
# pages in, when neither a listing nor their exit records can say it. In
# a slice this test makes under the v2 hierarchy, a launcher shell lives
# in launch-PID.service (a refresh or more: the listings see it there);
# right after a refresh it starts WRITERS writers into each of two other
# units, burst-PID.service and gone-PID.service: each moves itself there
# and then becomes a dd writing MIB MiB buffered (no fsync) into a file on
# an ext4 filesystem on a loop device of the test's own. They end well
# before the next refresh: no listing sees them, and their exit records
# name the launcher's cgroup (a process is taken to stay in its parent's).
# gone-PID.service had a process the listings saw (so the tool has its
# path) and is removed before the writers' pages are written, as a
# transient unit's cgroup is right after it stops. After the exit records'
# rows are gone, `sync` writes the pages. Summed over the run, each unit's
# to_disk bytes in `--json`'s cgroups[] (the BPF part: writeback charged
# to whoever dirtied the pages, and now to the cgroup they dirtied them
# in) are within 15 % of what its writers wrote, and the unit's source
# says so; a failure says what the launcher's unit, "/" and a cgroup not
# known got from the sync on. Without the BPF part (no TO-DISK figure) the
# test is skipped with the reason.
# Every cgroup made is removed in the trap (processes killed, the rest
# moved to the root first, the deepest removed first), on failure too.
# suite-budget: 40
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd jq losetup mkfs.ext4 mount dd sync
setup_scratch

cgroup_v2

WRITERS=2 MIB=16
SLICE=iosched-dirtier-$$.slice
LAUNCH=launch-$$.service UNIT=burst-$$.service GONE=gone-$$.service
DIRS=("$SLICE" "$SLICE/$LAUNCH" "$SLICE/$UNIT" "$SLICE/$GONE")

ext4_loop 256
make_cgroups "${DIRS[@]}" # (after ext4_loop: its unmount runs after this removal)
sync # what others left dirty goes now, not in this test's sync

OUT=$SCRATCH/out.json
# Its loop device alone: the bottom of what is shown, so TO-DISK counts
# the writers' requests there. Under it, part of them reaches vda as
# writeback of the backing file's own pages, the flusher's (about 10 %
# here): a stack's figures are test_to_disk_stacked's.
json_with_blk "$OUT" -d 1 --no-probe --procs 5 --disk "$N"

# The writers, each moving itself into its unit before it becomes dd.
writers() {
	for u in "$UNIT" "$GONE"; do
		for i in $(seq "$WRITERS"); do
			sh -c 'echo $$ > "$1/cgroup.procs" && exec dd if=/dev/zero of="$2" bs=1M count="$3" status=none' \
				sh "$CG/$SLICE/$u" "$MNT/$u.$i" "$MIB" &
		done
	done
}
# A process the listings see in the unit that is removed later.
sh -c 'echo $$ > "$1/cgroup.procs" && exec sleep 60' sh "$CG/$SLICE/$GONE" &
SLEEPER=$!
on_exit "kill $SLEEPER 2>/dev/null"
launch_unseen "$SLICE/$LAUNCH" "$OUT" writers
sleep 2.5
kill "$SLEEPER"
wait "$LAUNCHER" || fail "the writers failed"
for u in "$UNIT" "$GONE"; do
	grep -q . "$CG/$SLICE/$u/cgroup.procs" && fail "a process is still running in $u: $(xargs < "$CG/$SLICE/$u/cgroup.procs")"
done
rmdir "$CG/$SLICE/$GONE" || fail "cannot remove $CG/$SLICE/$GONE"
note "the writers ended, $GONE removed; Dirty: $(awk '/^Dirty:/ { print $2 }' /proc/meminfo) kB"
sleep 4 # the exit records' rows gone (3 refreshes)
SYNC_AT=$(date +%s.%N)
sync
sleep 2.5 # the intervals the writeback went out in, written
kill -INT "$TOOL"
wait "$TOOL"
[ -s "$OUT" ] || fail "no JSON: $(cat "$SCRATCH/err")"

wrote=$((WRITERS * MIB << 20))
# Where else the bytes may have gone: the launcher's unit (its exit
# records' guess), "/" and "" (a cgroup not known).
elsewhere=""
for other in "$SLICE/$LAUNCH" / ""; do
	elsewhere="$elsewhere \"$other\": $(cgroup_to_disk "$OUT" "$other" "$SYNC_AT")"
done
note "from the sync on:$elsewhere"
for u in "$UNIT" "$GONE"; do
	td=$(cgroup_to_disk "$OUT" "$SLICE/$u")
	note "$SLICE/$u: to disk $td bytes (its writers wrote $wrote)"
	within "$td" "$wrote" 15 ||
		fail "$u's TO-DISK is $td bytes, not within 15 % of the $wrote its ended writers wrote (from the sync on:$elsewhere)"
	# (a line where a listing still saw one of the writers alive says the
	# listing's source: on a loaded machine a writer can outlive a refresh)
	jq -es --arg p "$SLICE/$u" '[.[] | .cgroups[] | select(.path == $p and .to_disk_Bps > 0) | .source] |
		length > 0 and any(.[]; test("ended writers: the cgroup they dirtied the pages in"))' "$OUT" > /dev/null ||
		fail "$u's source does not say its TO-DISK came from the cgroup its writers dirtied the pages in: $(jq -rs --arg p "$SLICE/$u" \
			'[.[] | .cgroups[] | select(.path == $p and .to_disk_Bps > 0) | .source] | unique | join(" | ")' "$OUT")"
done
echo "PASS"
