#!/bin/bash
# --load-dir named through a link another user planted: the A/B's write
# load (and L's) reaches its directory as every path root writes is reached
# (no symbolic link on the way, no directory another user owns or may
# change), and takes its free space from that same directory. nobody plants
# x-load in a sticky directory (fs.protected_symlinks would stop root at
# the link; the test turns it off, as on a machine where it is off, and
# puts it back) as a link to "victim", a root-only directory of the test's;
# root's
#   iosched-top --ab none,mq-deadline --disk N --rounds 1 --dwell 2
#     --warmup 0 --load-dir TMP/x-load --load-size 64M
# is refused before it changes anything, says why, and nothing is written
# in victim at any time (watched while it runs). A directory nobody owns
# is refused too. Root's own plain directory still takes the load, and is
# left empty after it.
# suite-budget: 30
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd setpriv losetup mkfs.ext4 mount
setup_scratch

attach_loop 512; N=$(basename "$LOOP")
mkfs.ext4 -q -E nodiscard "$LOOP" || fail "mkfs failed"
mount_scratch "$LOOP" "$SCRATCH/mnt"
grep -qw mq-deadline "/sys/block/$N/queue/scheduler" || skip "no mq-deadline for $N"
symlinks_unprotected

chmod 755 "$SCRATCH" "$SCRATCH/mnt"
T=$SCRATCH/mnt/tmp V=$SCRATCH/mnt/victim
mkdir -m 1777 "$T"
mkdir -m 700 "$V"
nobody ln -s "$V" "$T/x-load" || fail "nobody could not plant the link"
nobody mkdir -m 755 "$T/nobodys" || fail "nobody could not make a directory"

# Anything that shows up in victim while the A/B runs is seen.
( while :; do ls -A "$V" >> "$SCRATCH/seen"; sleep 0.1; done ) &
watcher=$!
on_exit "kill $watcher"
ab() { "$BIN" --ab none,mq-deadline --disk "$N" --rounds 1 --dwell 2 --warmup 0 --load-dir "$1" --load-size 64M; }
ab "$T/x-load" > "$SCRATCH/link.out" 2> "$SCRATCH/link.err"
rc=$?
kill "$watcher"; wait "$watcher" 2>/dev/null
[ -z "$(sort -u "$SCRATCH/seen")" ] || fail "root wrote through nobody's link into victim: $(sort -u "$SCRATCH/seen" | xargs)"
[ $rc -ne 0 ] || fail "the A/B through nobody's link ran (exit 0)"
grep -q "cannot write a load in $T/x-load: $T/x-load is a symbolic link: not followed" "$SCRATCH/link.err" ||
	fail "the refusal does not say why: $(head -c 400 "$SCRATCH/link.err")"
[ "$(sched_of "$N")" = none ] || fail "the refused A/B left $N on $(sched_of "$N")"
note "$(grep -m1 -o 'cannot write a load in .*' "$SCRATCH/link.err" | cut -c1-150)"

ab "$T/nobodys" > /dev/null 2> "$SCRATCH/nob.err" && fail "the A/B wrote its load in nobody's directory"
grep -q "belongs to uid 65534" "$SCRATCH/nob.err" || fail "nobody's directory: $(head -c 400 "$SCRATCH/nob.err")"
[ -z "$(ls -A "$T/nobodys")" ] || fail "something was written in nobody's directory: $(ls -A "$T/nobodys")"

mkdir -m 700 "$SCRATCH/mnt/own"
ab "$SCRATCH/mnt/own" > "$SCRATCH/own.out" 2> "$SCRATCH/own.err" ||
	fail "the A/B in root's own directory exited $?: $(head -c 400 "$SCRATCH/own.err")"
[ -z "$(ls -A "$SCRATCH/mnt/own")" ] || fail "the load left $(ls -A "$SCRATCH/mnt/own")"
[ "$(sched_of "$N")" = none ] || fail "the A/B left $N on $(sched_of "$N")"
echo "PASS"
