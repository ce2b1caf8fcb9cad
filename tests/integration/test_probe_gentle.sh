#!/bin/bash
# The probe file is written gently (issue 19): where the root disk's node
# is refused (this machine's vda) the probe writes a file on its
# filesystem; in a mount namespace of this test's with a /var/tmp of its
# own, the writing thread is at idle I/O priority while the file grows,
# the file grows at no more than 50 MB/s (the bound; the check allows 10 %
# for the one-second steps of the pace), and the process that then reads
# for the probe is not idle (the priority was put back before it started).
# suite-budget: 16
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd unshare ionice
setup_scratch
root=$(basename "$(dirname "$(readlink -f "/sys/dev/block/$(mountpoint -d /)")")")
[ -e "/sys/block/$root" ] || root=$(basename "$(readlink -f "/sys/dev/block/$(mountpoint -d /)")")
[ -e "/sys/block/$root" ] || skip "cannot tell the root disk"
dd if="/dev/$root" of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null &&
	skip "the root disk's node opens here: no probe file is written (run where it is refused)"

mkdir -m 1777 "$SCRATCH/vt"
unshare -m bash -c '
	mount --make-rprivate / && mount --bind "$1/vt" /var/tmp || exit 3
	"$3" -b -d 1 -n 60 --disk "$2" --probe "$2" --probe-file-size 160M --procs 0 > /var/tmp/out 2>&1 &
	pid=$!
	for _ in $(seq 400); do
		t=$(grep -l "^iosched-probe$" /proc/$pid/task/*/comm 2>/dev/null | head -n1)
		[ -n "$t" ] && t=${t%/comm} && t=${t##*/}
		# the priority before the size: it is put back only once the
		# file is whole (and the size of a renamed file is not found)
		prio=$([ -n "$t" ] && ionice -p "$t" 2>/dev/null | cut -d: -f1)
		size=$(stat -c %s /var/tmp/iosched-top-0/.$2.probe.*.tmp 2>/dev/null | head -n1)
		[ -n "$t" ] && [ -n "$size" ] && echo "$(date +%s.%N) $size $prio"
		[ -f /var/tmp/iosched-top-0/$2.probe ] && break
		sleep 0.1
	done > /var/tmp/samples
	sleep 1.5
	for c in $(pgrep -P $pid); do echo "$(cat /proc/$c/comm) $(ionice -p $c | cut -d: -f1)"; done > /var/tmp/children
	kill $pid; wait $pid
	exit 0' _ "$SCRATCH" "$root" "$(bin_in_var_tmp "$SCRATCH/vt")" || fail "the namespace run failed ($?)"
V=$SCRATCH/vt
[ -s "$V/samples" ] || fail "the probe file's writing was never seen: $(tail -3 "$V/out")"
grep -q ' idle$' "$V/samples" || fail "the writer was never at idle priority: $(sort -u -k3 "$V/samples" | head -3)"
# Once the last byte is written the writer puts its priority back, and the
# file keeps its temporary name a moment longer (until the rename): a look
# then sees the whole size and "none" (seen once in a run). Before its
# first byte the file exists and the writer has not lowered its priority
# yet. Neither is a writer that left idle priority while writing.
full=$((160 * 1024 * 1024))
awk -v full="$full" '$2 > 0 && $2 < full && $3 != "idle"' "$V/samples" | grep -q . &&
	fail "the writer left idle priority while writing: $(awk -v full="$full" '$2 > 0 && $2 < full && $3 != "idle"' "$V/samples" | head -2)"
rate=$(awk 'NR == 1 { t0 = $1; s0 = $2 } { t = $1; s = $2 } END { if (t > t0) printf "%.1f", (s - s0) / (t - t0) / 1e6; else print 0 }' "$V/samples")
awk -v r="$rate" 'BEGIN { exit !(r <= 55) }' || fail "the probe file grew at $rate MB/s, over the 50 MB/s bound"
grep -q '^iosched-reader ' "$V/children" || fail "no reader process after the file was written: $(cat "$V/children")"
grep -q '^iosched-reader idle' "$V/children" && fail "the reader inherited the idle priority"
note "probe file written at $rate MB/s, at idle priority ($(wc -l < "$V/samples") looks); reader: $(grep '^iosched-reader' "$V/children")"
echo "PASS"
