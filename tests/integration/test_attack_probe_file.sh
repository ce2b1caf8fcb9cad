#!/bin/bash
# A probe file named with --probe-file in a directory another user
# controls: root reaches the directory as every path it writes is reached
# (no symbolic link on the way, no directory another user owns or may
# write). nobody owns "mal" in the test's scratch and plants mal/d as a
# link to "victim", a root-only directory; root's
#   iosched-top -b --probe DISK --probe-file mal/d/p.probe --probe-file-size 16M
# (DISK: the disk the scratch lives on) writes nothing in victim and says
# why it does not write there.
# suite-budget: 20
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd setpriv findmnt lsblk
setup_scratch

src=$(findmnt -no SOURCE -T "$SCRATCH")
disk=$(lsblk -ndo PKNAME "$src" 2>/dev/null)
[ -n "$disk" ] || disk=$(basename "$src")
[ -e "/sys/block/$disk" ] || skip "cannot tell the disk $SCRATCH lives on ($src)"

chmod 755 "$SCRATCH"
mkdir "$SCRATCH/mal" "$SCRATCH/victim"
chown nobody "$SCRATCH/mal"
chmod 700 "$SCRATCH/victim"
setpriv --reuid=nobody --regid=nogroup --clear-groups ln -s "$SCRATCH/victim" "$SCRATCH/mal/d" ||
	fail "nobody could not plant the link"
"$BIN" -b -n 4 -d 1 --probe "$disk" --disk "$disk" --probe-file "$SCRATCH/mal/d/p.probe" --probe-file-size 16M \
	> "$SCRATCH/out" 2> "$SCRATCH/err" || fail "iosched-top exited $?: $(head -c 300 "$SCRATCH/err")"
left=$(ls -A "$SCRATCH/victim")
[ -z "$left" ] || fail "root wrote through nobody's link into a root-only directory: $left"
grep -q "cannot use a probe file in $SCRATCH/mal/d" "$SCRATCH/out" ||
	fail "the run does not say why it wrote no probe file: $(grep -i -m2 probe "$SCRATCH/out")"
note "$(grep -m1 -o 'cannot use a probe file in .*' "$SCRATCH/out" | cut -c1-160)"
echo "PASS"
