#!/bin/bash
# A monitor that writes nothing: an unprivileged user with no earlier state
# (nobody, HOME and XDG_CONFIG_HOME an empty directory, no probe file, no
# /var/tmp/iosched-top-65534) runs the tool on the root disk, whose node it
# cannot open, with its JSON going into a pipe. In a mount namespace of this
# test's, /var/tmp is an empty directory of its scratch and /tmp an empty
# tmpfs, so that no earlier run's files (nor another test's, nor another
# instance's) are seen, and nothing of the machine's is touched:
#  - the root disk has a p50 within 10 s of the start, read from the files
#    already on its filesystems (probe.mode "files", files > 0);
#  - the tool's own write_bytes (/proc/PID/io, the tool and its children,
#    sampled until it exits) stay under 1 MiB, while its read_bytes show
#    that the sampling saw its reads;
#  - after it exits, nothing new is in /var/tmp, /tmp or HOME.
# suite-budget: 25
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd jq unshare setpriv
setup_scratch

root=$(basename "$(dirname "$(readlink -f "/sys/dev/block/$(mountpoint -d /)")")")
[ -e "/sys/block/$root" ] || root=$(basename "$(readlink -f "/sys/dev/block/$(mountpoint -d /)")")
[ -e "/sys/block/$root" ] || skip "cannot tell the root disk"
setpriv --reuid=65534 --regid=65534 --clear-groups dd if="/dev/$root" of=/dev/null bs=4k count=1 iflag=direct \
	2>/dev/null && skip "nobody can open /dev/$root here: the probe reads the node, not files"

chmod 755 "$SCRATCH"
VT=$SCRATCH/vt # /var/tmp in the namespace
mkdir -m 1777 "$VT"
mkdir -m 755 "$VT/w"          # the test's own: outputs (root's, not nobody's)
mkdir -m 700 "$VT/home"       # nobody's empty HOME
chown 65534:65534 "$VT/home"
cp "$BIN" "$VT/w/tool" && chmod 755 "$VT/w/tool" || fail "cannot copy $BIN"

unshare -m bash -c '
	mount --make-rprivate / && mount --bind "$1" /var/tmp &&
		mount -t tmpfs -o mode=1777,size=16m iosched-ro-tmp /tmp || exit 3
	# every name in /var/tmp (but the test'"'"'s own w), /tmp and HOME
	listing() { { ls -A /var/tmp | grep -vxe w -e home; ls -A /tmp; find /var/tmp/home -mindepth 1; } | sort; }
	listing > /var/tmp/w/before
	# io PID...: write_bytes and read_bytes summed over PID and its descendants
	tree() { local c; echo "$1"; for c in $(pgrep -P "$1"); do tree "$c"; done; }
	io() { for p in $(tree "$1"); do cat "/proc/$p/io" 2>/dev/null; done |
		awk "/^write_bytes:/ { w += \$2 } /^read_bytes:/ { r += \$2 } END { print w + 0, r + 0 }"; }
	date +%s.%N > /var/tmp/w/start
	env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/var/tmp/home XDG_CONFIG_HOME=/var/tmp/home/.config \
		setpriv --reuid=65534 --regid=65534 --clear-groups /var/tmp/w/tool --json -d 1 -n 10 \
		--disk "$2" --probe "$2" > >(cat > /var/tmp/w/out.json) 2> /var/tmp/w/err &
	pid=$!
	# sampled until it exits: the last sample is at most 0.1 s before its end
	while kill -0 "$pid" 2>/dev/null; do
		s=$(io "$pid")
		[ -n "$s" ] && [ "$s" != "0 0" ] && echo "$(date +%s.%N) $s" >> /var/tmp/w/io
		sleep 0.1
	done
	wait "$pid"; echo $? > /var/tmp/w/rc
	sleep 0.5 # the pipe'"'"'s reader writes the last line
	listing > /var/tmp/w/after
	exit 0' _ "$VT" "$root" || fail "the namespace run failed ($?)"

W=$VT/w
rc=$(cat "$W/rc")
[ "$rc" = 0 ] || fail "the tool exited $rc: $(head -c 400 "$W/err")"
[ "$(wc -l < "$W/out.json")" -eq 10 ] || fail "$(wc -l < "$W/out.json") JSON lines, not 10: $(head -c 400 "$W/err")"
probe() { jq -c --arg d "$root" '.disks[] | select(.name == $d) | .probe | del(.slow)' "$1"; }

# A p50 within 10 s, read from files.
first=$(jq -c --arg d "$root" 'select(any(.disks[]; .name == $d and .probe.p50_us != null)) |
	{ts, p: (.disks[] | select(.name == $d) | .probe | {mode, p50_us, n, files, span_bytes})}' "$W/out.json" | head -n1)
[ -n "$first" ] || fail "no p50 for $root in the whole run: $(tail -n1 "$W/out.json" | probe /dev/stdin)"
echo "$first" | jq -e '.p.mode == "files" and .p.files > 0 and .p.span_bytes > 0' > /dev/null ||
	fail "the p50 is not from the read-only file mode: $first"
after=$(echo "$first" | jq -r --arg s "$(cat "$W/start")" '.ts - ($s | tonumber)')
awk -v a="$after" 'BEGIN { exit !(a <= 10) }' || fail "the first p50 came $after s after the start"
jq -e --arg d "$root" 'all(.disks[] | select(.name == $d); .probe.mode == "files")' "$W/out.json" > /dev/null ||
	fail "the probe left the file mode: $(jq -r --arg d "$root" '.disks[] | select(.name == $d) | .probe.mode' "$W/out.json" | sort | uniq -c | xargs)"
note "first p50 ${after}s after the start: $first"

# Its own writes: under 1 MiB, from samples that saw its reads. A sample
# sums the processes alive then: the reader child ends before the tool, so
# the last samples miss its counts; the largest of each is taken (the
# counters only grow while their process lives).
[ -s "$W/io" ] || fail "/proc/PID/io of the tool was never read"
t_last=$(tail -n1 "$W/io" | cut -d' ' -f1)
read -r wb rb < <(awk '$2 > w { w = $2 } $3 > r { r = $3 } END { print w + 0, r + 0 }' "$W/io")
span=$(awk -v s="$(cat "$W/start")" -v t="$t_last" 'BEGIN { printf "%.1f", t - s }')
awk -v s="$span" 'BEGIN { exit !(s >= 8) }' || fail "the last /proc/PID/io sample came ${span}s after the start, not near the end"
[ "$rb" -gt 0 ] || fail "the samples saw no reads of the tool (read_bytes $rb): they prove nothing"
[ "$wb" -lt $((1 << 20)) ] || fail "the tool wrote $wb bytes (write_bytes, tool and children, the most any sample saw)"
note "the tool and its children, sampled until ${span}s: write_bytes $wb, read_bytes $rb (the most any sample saw)"

# Nothing left.
[ "$(cat "$W/before")" = "" ] || fail "the namespace's /var/tmp, /tmp or HOME was not empty at the start: $(xargs < "$W/before")"
[ "$(cat "$W/after")" = "" ] || fail "left in /var/tmp, /tmp or HOME: $(xargs < "$W/after")"
echo "PASS"
