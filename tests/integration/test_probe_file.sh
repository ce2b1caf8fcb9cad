#!/bin/bash
# The probe's file mode. With --probe-file on an ext4 filesystem on a loop
# device this test makes, the probe reads that file (mode "file", and says
# why), the file is written whole (not sparse) and reused on the next run.
# Where a device node cannot be opened (this machine's root disk gives
# EPERM), the probe falls back to a file by itself; checked when the root
# disk is like that here.
# suite-budget: 30
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd jq losetup mkfs.ext4 mount
setup_scratch

attach_loop 160 fill; L=$LOOP
N=$(basename "$L")
mkfs.ext4 -q -E nodiscard "$L" || fail "mkfs failed"
mount_scratch "$L" "$SCRATCH/mnt"
F="$SCRATCH/mnt/probe.dat"

"$BIN" --json -d 1 -n 4 --disk "$N" --probe-file "$F" --probe-file-size 32M --probe-rate max \
	> "$SCRATCH/a.json" || fail "run with --probe-file exited $?"
tail -n1 "$SCRATCH/a.json" | jq -e '.disks[0].probe | .mode == "file" and (.why | test("--probe-file")) and .n > 50' \
	>/dev/null || fail "file mode wrong: $(tail -n1 "$SCRATCH/a.json" | jq -c .disks[0].probe)"
[ -f "$F" ] || fail "probe file not created"
size=$(stat -c %s "$F"); blocks=$(stat -c %b "$F")
[ "$size" -eq $((32 << 20)) ] || fail "probe file is $size bytes, wanted 32 MiB"
[ $((blocks * 512)) -ge "$size" ] || fail "probe file is sparse"
[ "$(stat -c %a "$F")" = 600 ] || fail "probe file mode $(stat -c %a "$F"), wanted 600"
m1=$(stat -c %Y.%i "$F")
"$BIN" --json -d 0.5 -n 2 --disk "$N" --probe-file "$F" > /dev/null || fail "second run failed"
[ "$(stat -c %Y.%i "$F")" = "$m1" ] || fail "probe file rewritten instead of reused"
note "file mode: $(tail -n1 "$SCRATCH/a.json" | jq -r '.disks[0].probe | "n=\(.n) p50=\(.p50_us)us"')"

# A sparse file named by the user is refused, not trusted.
truncate -s 32M "$SCRATCH/mnt/sparse.dat"
"$BIN" --json -d 0.5 -n 2 --disk "$N" --probe-file "$SCRATCH/mnt/sparse.dat" > "$SCRATCH/s.json" ||
	fail "run with a sparse --probe-file exited $?"
tail -n1 "$SCRATCH/s.json" | jq -e '.disks[0].probe | .mode == "off" and (.why | test("sparse"))' >/dev/null ||
	fail "sparse file accepted: $(tail -n1 "$SCRATCH/s.json" | jq -c .disks[0].probe)"

# Automatic fallback found through mountinfo: an unprivileged user cannot
# open /dev/loopN (EACCES), so the probe writes its file on the loop
# device's own filesystem, in a private directory of its own there
# (.iosched-top-UID: one user's never stands in another's way).
if command -v setpriv >/dev/null; then
	chmod 1777 "$SCRATCH/mnt"; chmod 755 "$SCRATCH"
	cp "$BIN" "$SCRATCH/iosched-top" && chmod 755 "$SCRATCH/iosched-top"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$SCRATCH/iosched-top" --json -d 1 -n 3 --disk "$N" \
		--probe-file-size 16M > "$SCRATCH/u.json" || fail "unprivileged run exited $?"
	tail -n1 "$SCRATCH/u.json" | jq -e '.disks[0].probe | .mode == "file" and (.why | test("denied")) and .n > 0' \
		>/dev/null || fail "no fallback for an unprivileged user: $(tail -n1 "$SCRATCH/u.json" | jq -c .disks[0].probe)"
	[ "$(stat -c '%a %U' "$SCRATCH/mnt/.iosched-top-65534")" = "700 nobody" ] || fail "probe directory not private"
	[ -f "$SCRATCH/mnt/.iosched-top-65534/$N.probe" ] || fail "no probe file in the mount's .iosched-top-65534"
	note "unprivileged fallback: $(tail -n1 "$SCRATCH/u.json" | jq -r '.disks[0].probe.why')"
fi

# Automatic fallback, where this machine's root disk refuses its node.
root=$(basename "$(dirname "$(readlink -f "/sys/dev/block/$(mountpoint -d /)")")")
[ -e "/sys/block/$root" ] || root=$(basename "$(readlink -f "/sys/dev/block/$(mountpoint -d /)")")
if [ -e "/sys/block/$root" ] && ! dd if="/dev/$root" of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null; then
	PD=/var/tmp/iosched-top-$(id -u)
	had=""; [ -e "$PD/$root.probe" ] && had=1
	"$BIN" --json -d 1 -n 3 --disk "$root" --probe "$root" --probe-file-size 32M > "$SCRATCH/r.json" ||
		fail "fallback run exited $?"
	tail -n1 "$SCRATCH/r.json" | jq -e '.disks[0].probe | .mode == "file" and (.why | test("not permitted|denied|No such"))' \
		>/dev/null || fail "no fallback on $root: $(tail -n1 "$SCRATCH/r.json" | jq -c .disks[0].probe)"
	note "fallback on $root: $(tail -n1 "$SCRATCH/r.json" | jq -r '.disks[0].probe.why')"
	[ -n "$had" ] || { rm -f "$PD/$root.probe"; rmdir "$PD" 2>/dev/null; }
	# Another user's directory where root's goes (issue 17), in a mount
	# namespace of this test's with a /var/tmp of its own: nobody makes
	# iosched-top-0 with a whole probe file in it. Root does not take that
	# file (its figures would be nobody's to make), nor is its probe turned
	# off: it reads a file in a private directory made for the run
	# (iosched-top-0.XXXXXX), says so, and removes it at the end. A run
	# killed with SIGKILL leaves that directory; the next run removes it and
	# says so. With the planted directory gone, root makes its own, 0700.
	if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null && command -v setpriv >/dev/null; then
		mkdir -m 1777 "$SCRATCH/vt"
		unshare -m sh -c '
			mount --make-rprivate / && mount --bind "$1/vt" /var/tmp || exit 3
			setpriv --reuid=65534 --regid=65534 --clear-groups sh -c \
				"mkdir -m 755 /var/tmp/iosched-top-0 && dd if=/dev/urandom of=/var/tmp/iosched-top-0/$2.probe bs=1M count=32 status=none"
			sha256sum < /var/tmp/iosched-top-0/$2.probe > /var/tmp/planted.sha
			"$3" --json -d 0.5 -n 3 --disk "$2" --probe "$2" --probe-file-size 32M > /var/tmp/a.json 2> /var/tmp/a.err
			sha256sum < /var/tmp/iosched-top-0/$2.probe > /var/tmp/after.sha
			ls -d /var/tmp/iosched-top-0.* > /var/tmp/a.left 2>/dev/null
			"$3" -b -d 0.5 --disk "$2" --probe "$2" --probe-file-size 32M > /dev/null 2>&1 &
			pid=$!
			for _ in $(seq 100); do ls /var/tmp/iosched-top-0.*/$2.probe > /dev/null 2>&1 && break; sleep 0.1; done
			kill -9 $pid; wait $pid
			ls -d /var/tmp/iosched-top-0.* > /var/tmp/k.left 2>/dev/null
			"$3" --json -d 0.5 -n 2 --disk "$2" --probe "$2" --probe-file-size 32M > /var/tmp/c.json 2> /var/tmp/c.err
			ls -d /var/tmp/iosched-top-0.* > /var/tmp/c.left 2>/dev/null
			rm -rf /var/tmp/iosched-top-0
			"$3" --json -d 0.5 -n 80 --disk "$2" --probe "$2" --probe-file-size 32M > /var/tmp/b.json 2> /var/tmp/b.err &
			pid=$!
			for _ in $(seq 400); do
				l=$(tail -n1 /var/tmp/b.json 2>/dev/null) # (jq -e takes no input for true)
				[ -n "$l" ] && echo "$l" | jq -e ".disks[0].probe.n > 0" > /dev/null 2>&1 && break
				sleep 0.1
			done
			kill -INT $pid; wait $pid
			stat -c "%a %U" /var/tmp/iosched-top-0 > /var/tmp/b.stat
			rm -rf /var/tmp/iosched-top-0' _ "$SCRATCH" "$root" "$(bin_in_var_tmp "$SCRATCH/vt")" || fail "the namespace run failed ($?)"
		V=$SCRATCH/vt # the namespace's /var/tmp
		cmp -s "$V/planted.sha" "$V/after.sha" || fail "nobody's planted file changed"
		tail -n1 "$V/a.json" | jq -e '.disks[0].probe | .mode == "file" and .n > 0 and
			(.why | test("iosched-top-0 is not a private directory.*reads /var/tmp/iosched-top-0[.]....../.*made for this run"))' \
			>/dev/null || fail "a planted directory turned root's probe off or went unsaid: $(tail -n1 "$V/a.json" | jq -c .disks[0].probe)"
		[ ! -s "$V/a.left" ] || fail "the run's private directory was left: $(cat "$V/a.left")"
		[ -s "$V/k.left" ] || fail "the killed run left no private directory (was it killed before it made one?)"
		grep -q "removed.*$(basename "$(cat "$V/k.left")")" "$V/c.err" ||
			fail "the next run did not say it removed $(cat "$V/k.left"): $(cat "$V/c.err")"
		[ ! -s "$V/c.left" ] || fail "private directories left after the next run: $(cat "$V/c.left")"
		# (up to 40 s, the run ended once a line has reads: the file is
		# written at idle I/O priority, which a busy disk starves; beside
		# another test's writers it was not whole after 6 s)
		tail -n1 "$V/b.json" | jq -e '.disks[0].probe | .mode == "file" and .n > 0' >/dev/null ||
			fail "no probe in root's own directory: $(tail -n1 "$V/b.json" | jq -c .disks[0].probe) $(wc -l < "$V/b.json") lines; $(cat "$V/b.err")"
		[ "$(cat "$V/b.stat")" = "700 root" ] || fail "root's probe directory is $(cat "$V/b.stat")"
		note "planted directory: $(tail -n1 "$V/a.json" | jq -r '.disks[0].probe.why')"
		note "after a killed run: $(head -n1 "$V/c.err")"
	fi
else
	note "root disk node opens here: automatic fallback not exercised"
fi
echo "PASS"
