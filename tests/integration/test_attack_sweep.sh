#!/bin/bash
# Root's sweep of leftovers at the start of a run removes only what a run
# of the tool made, reached only the way every path root writes is reached.
# Where this machine's root disk refuses its node, root's probe reads a file
# in /var/tmp/iosched-top-0 and the start sweeps that directory. In a mount
# namespace of this test's whose /var/tmp is a directory of its scratch:
#  - nobody plants iosched-top-0 as a symbolic link to a directory of
#    root's (the test's own "victim", in its scratch) holding root's files
#    with names of the tool's temporaries (.shadow.1.tmp,
#    .important.4242.tmp, and one whose lock file even says a dead run of
#    the tool made it): nothing there is removed, nothing said removed;
#  - root's own iosched-top-0 (0700): a temporary whose lock file says a
#    dead run of the tool on this machine made it, and one of that pattern
#    without a lock file (an older version's, its pid no run of the tool):
#    removed, and said so; one without a lock file whose flock is held
#    (by the test's shell): left.
# suite-budget: 20
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd unshare setpriv flock
setup_scratch

root=$(basename "$(dirname "$(readlink -f "/sys/dev/block/$(mountpoint -d /)")")")
[ -e "/sys/block/$root" ] || root=$(basename "$(readlink -f "/sys/dev/block/$(mountpoint -d /)")")
[ -e "/sys/block/$root" ] || skip "cannot tell the root disk"
dd if="/dev/$root" of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null &&
	skip "root's node of $root opens here: root's probe never falls back to /var/tmp/iosched-top-0"

chmod 755 "$SCRATCH"
mkdir -m 1777 "$SCRATCH/vt"
V=$SCRATCH/vt/victim # /var/tmp/victim in the namespace
mkdir -m 755 "$V"
for f in .shadow.1.tmp .important.4242.tmp ".$root.probe.999999.tmp"; do echo "root's $f" > "$V/$f"; done
mark="iosched-top $(cat /etc/machine-id 2>/dev/null || echo -) $(cat /proc/sys/kernel/random/boot_id) 999999"
echo "$mark" > "$V/.$root.probe.999999.tmp.lock"
kill -0 999999 2>/dev/null && skip "pid 999999 lives: the test's dead run would not be dead"
victims=$(ls -A "$V" | xargs)

unshare -m sh -c '
	mount --make-rprivate / && mount --bind "$1/vt" /var/tmp || exit 3
	setpriv --reuid=65534 --regid=65534 --clear-groups ln -s /var/tmp/victim /var/tmp/iosched-top-0 || exit 4
	"$3" -b -n 2 -d 0.5 --probe "$2" --disk "$2" --probe-file-size 16M > /dev/null 2> /var/tmp/link.err
	rm /var/tmp/iosched-top-0
	mkdir -m 700 /var/tmp/iosched-top-0
	for f in .important.999999.tmp .held.999999.tmp ".$2.probe.999999.tmp"; do echo "$f" > "/var/tmp/iosched-top-0/$f"; done
	echo "$4" > "/var/tmp/iosched-top-0/.$2.probe.999999.tmp.lock"
	exec 9< /var/tmp/iosched-top-0/.held.999999.tmp && flock -n 9 || exit 5
	"$3" -b -n 2 -d 0.5 --probe "$2" --disk "$2" --probe-file-size 16M > /dev/null 2> /var/tmp/own.err 9<&-
	exec 9<&-
	ls -A /var/tmp/iosched-top-0 > /var/tmp/own.left
	rm -rf /var/tmp/iosched-top-0' _ "$SCRATCH" "$root" "$(bin_in_var_tmp "$SCRATCH/vt")" "$mark" ||
	fail "the namespace run failed ($?)"

VT=$SCRATCH/vt
[ "$(ls -A "$V" | xargs)" = "$victims" ] || fail "through the planted link the sweep removed: now $(ls -A "$V" | xargs), was $victims; $(cat "$VT/link.err")"
grep -q "removed" "$VT/link.err" && fail "the run said it removed something through the link: $(cat "$VT/link.err")"
note "a link planted at iosched-top-0: $victims all kept"

grep -qx -- .held.999999.tmp "$VT/own.left" || fail "a temporary whose flock is held was removed: $(cat "$VT/own.err")"
for f in ".$root.probe.999999.tmp" .important.999999.tmp; do
	grep -qx -- "$f" "$VT/own.left" && fail "a dead run's temporary $f was left: $(xargs < "$VT/own.left"); $(cat "$VT/own.err")"
	grep -q "removed temporary file /var/tmp/iosched-top-0/$f" "$VT/own.err" ||
		fail "the dead run's temporary $f was not said removed: $(cat "$VT/own.err")"
done
note "root's own directory: $(grep -c removed "$VT/own.err") removed; kept $(xargs < "$VT/own.left")"
echo "PASS"
