#!/bin/bash
# Runs inside the guest (tests/guest/inside.sh; make check-guest and
# bench/guest-cgroups): a pure cgroup v2 Debian 12 with the io controller.
# A null_blk disk under bfq, a rate-limited fio writer (O_DIRECT) in the
# service guesttest.slice/guest-writer.service with IOAccounting on
# (systemd then enables the io controller down to it), io.bfq.weight and
# io.weight set to known values, and `iosched-top --json -d 1 --no-probe`
# for SAMPLES intervals meanwhile; then w in the full screen's units pane
# changes the real io.bfq.weight, u undoes it, w again, and the exit
# report's revert line puts it back. Prints "ok    units: CHECK: ..." or
# "FAIL  units: CHECK: ..." a check, with the figures compared.
set -u
export TERM=${TERM:-linux}
BIN=/opt/iosched/iosched-top
CG=/sys/fs/cgroup
UNIT=guest-writer.service
SLICE=guesttest.slice
DIR="$CG/$SLICE/$UNIT"
BFQW=321      # io.bfq.weight set on the unit (1..1000)
IOW=222       # io.weight set on the unit (1..10000)
RATE_MB=16    # fio's write rate
SAMPLES=12    # iosched-top's intervals (1 s)
W=/run/iosched-check
fails=0
jq() { command jq -M "$@"; } # the output is a serial terminal: no colours

check() { # check NAME OK(0/1) DETAIL
	if [ "$2" = 1 ]; then echo "ok    units: $1: $3"; else echo "FAIL  units: $1: $3"; fails=$((fails + 1)); fi
}
within() { # within A B FRACTION: 1 when A is within FRACTION of B
	awk -v a="$1" -v b="$2" -v f="$3" 'BEGIN { print (b > 0 && a / b >= 1 - f && a / b <= 1 + f) ? 1 : 0 }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "nan" }'; }
finish() {
	echo "guest: units: $fails check(s) failed"
	exit 0
}
T() { tmux -S "$W/tmux" "$@"; }
wait_screen() { # wait_screen ERE [SECONDS]: 0 once the full screen shows it
	for _ in $(seq $((${2:-20} * 5))); do T capture-pane -p -t main | grep -qE -- "$1" && return 0; sleep 0.2; done
	T capture-pane -p -t main | sed 's/^/guest: screen: /'
	return 1
}
bfq_now() { head -1 "$DIR/io.bfq.weight" | awk '{ print $NF }'; }
# w in the units pane on the real io.bfq.weight (the suite can only fake
# it): the unit sorted first by WEIGHT, 321 -> 500, q, then the exit
# report's revert line run.
tui_weight() {
	T -f /dev/null new-session -d -s main -x 160 -y 40 \
		"$BIN -d 1 --no-probe 2> $W/tui.err; echo \$? > $W/tui.rc; sleep 60"
	wait_screen "Processes" 60 || { check tui-weight 0 "the full screen did not start"; return; }
	T send-keys -t main U
	wait_screen "^$UNIT +.* $BFQW " || { check tui-weight 0 "the units pane does not show $UNIT with $BFQW"; return; }
	for _ in $(seq 12); do
		T capture-pane -p -t main | grep -q "units sorted by WEIGHT" && break
		T send-keys -t main '>'
		sleep 0.5
	done
	T send-keys -t main g w
	wait_screen "io.bfq.weight \(1-1000, now $BFQW\)" || { check tui-weight 0 "w did not ask for $UNIT's weight"; return; }
	T send-keys -t main BSpace BSpace BSpace BSpace 500 Enter
	wait_screen "io.bfq.weight $BFQW -> 500" || { check tui-weight 0 "no status line for the change"; return; }
	[ "$(bfq_now)" = 500 ] || { check tui-weight 0 "the screen says 500, io.bfq.weight says $(bfq_now)"; return; }
	T send-keys -t main u
	wait_screen "io.bfq.weight 500 -> $BFQW \\(undo\\)" || { check tui-weight 0 "u did not undo the change"; return; }
	[ "$(bfq_now)" = "$BFQW" ] || { check tui-weight 0 "after u, io.bfq.weight is $(bfq_now), not $BFQW"; return; }
	# the pane's row again with the weight put back (a later sample)
	wait_screen "^$UNIT +.* $BFQW " || { check tui-weight 0 "the pane does not show $BFQW again after u"; return; }
	T send-keys -t main w
	wait_screen "io.bfq.weight \\(1-1000, now $BFQW\\)" || { check tui-weight 0 "w did not ask again"; return; }
	T send-keys -t main BSpace BSpace BSpace BSpace 500 Enter
	wait_screen "io.bfq.weight $BFQW -> 500" || { check tui-weight 0 "no status line for the second change"; return; }
	T send-keys -t main q
	for _ in $(seq 50); do [ -e "$W/tui.rc" ] && break; sleep 0.2; done
	local now revert
	now=$(bfq_now)
	revert=$(sed -n 's/^to revert: \(sudo \)\{0,1\}//p' "$W/tui.err")
	[ -n "$revert" ] && sh -c "$revert"
	check tui-weight "$([ "$now" = 500 ] && [ "$(cat "$W/tui.rc" 2>/dev/null)" = 0 ] && [ "$(bfq_now)" = "$BFQW" ] &&
		echo 1 || echo 0)" "w set io.bfq.weight to $now (asked 500, after u put back $BFQW), exit $(cat "$W/tui.rc" 2>/dev/null), the revert line put back $(bfq_now) (was $BFQW)"
	T kill-server
}
mkdir -p "$W"
echo "guest: kernel $(uname -r), systemd $(systemctl --version | awk 'NR == 1 { print $2 }')"

fstype=$(stat -f -c %T "$CG")
check pure-v2 "$([ "$fstype" = cgroup2fs ] && echo 1 || echo 0)" "$CG is $fstype"
check io-on-v2 "$(grep -qw io "$CG/cgroup.controllers" && echo 1 || echo 0)" \
	"root cgroup.controllers: $(cat "$CG/cgroup.controllers")"

modprobe bfq && modprobe kyber-iosched
modprobe null_blk nr_devices=1 memory_backed=1 gb=1 queue_mode=2 || { check null_blk 0 "modprobe failed"; finish; }
udevadm settle
dev=nullb0
echo bfq > "/sys/block/$dev/queue/scheduler"
majmin=$(cat "/sys/block/$dev/dev")
echo "guest: /dev/$dev ($majmin) schedulers: $(cat "/sys/block/$dev/queue/scheduler")"

# The writer: fio, then its own cgroup's io.stat line for the disk (the
# cgroup is new, so that is everything the unit wrote).
secs=600 # more than the checks take: the writer is stopped (SIGINT: fio reports) after them
cat > "$W/writer" <<-EOF
	#!/bin/sh
	fio --name=w --filename=/dev/$dev --rw=write --bs=256k --size=64m --direct=1 --ioengine=psync \\
		--rate=${RATE_MB}m --time_based --runtime=$secs --output-format=json --output=$W/fio.json
	grep '^$majmin ' "$CG\$(sed -n 's/^0:://p' /proc/self/cgroup)/io.stat" > $W/io.stat
EOF
systemd-run --quiet --unit="$UNIT" --slice="$SLICE" -p IOAccounting=yes /bin/sh "$W/writer"
for _ in $(seq 50); do [ -e "$DIR/io.bfq.weight" ] && break; sleep 0.2; done
if [ ! -e "$DIR/io.bfq.weight" ]; then
	check writer-started 0 "no $DIR/io.bfq.weight; the unit's log:"
	journalctl -b -q -u "$UNIT" | tail -20
	finish
fi
echo "guest: parent's subtree_control: $(cat "$CG/$SLICE/cgroup.subtree_control")"
echo "$BFQW" > "$DIR/io.bfq.weight"
echo "default $IOW" > "$DIR/io.weight"
echo "guest: $UNIT io.bfq.weight: $(head -1 "$DIR/io.bfq.weight"), io.weight: $(head -1 "$DIR/io.weight")"
sleep 2

"$BIN" --json -d 1 -n "$SAMPLES" --no-probe > "$W/top.json" 2> "$W/top.err"
rc=$?
lines=$(wc -l < "$W/top.json")
check no-crash "$([ "$rc" = 0 ] && [ "$lines" = "$SAMPLES" ] && jq -e . "$W/top.json" > /dev/null && echo 1 || echo 0)" \
	"exit $rc, $lines JSON lines of $SAMPLES$(head -c 300 "$W/top.err" | tr '\n' ' ')"
tui_weight
pkill -INT -x fio
while systemctl is-active --quiet "$UNIT"; do sleep 1; done
# fio stopped by a signal says so above its JSON, in the same file
sed -i -n '/^{/,$p' "$W/fio.json"

# The unit's entries, from the third interval on (the rates need two
# readings, and fio has been writing since before the first).
sel=".cgroups[] | select(.path == \"$SLICE/$UNIT\")"
jq -c "$sel" "$W/top.json" | tail -n +3 > "$W/unit.json"
n=$(wc -l < "$W/unit.json")
check unit-listed "$([ "$n" -ge 5 ] && echo 1 || echo 0)" "$SLICE/$UNIT in $n of the intervals used"
if [ "$n" -lt 1 ]; then
	tail -1 "$W/top.json" | jq -c '{cgroups_why, cgroups: [.cgroups[] | {path, procs, write_Bps, stat_write_Bps}]}'
	tail -1 "$W/top.json" | jq -c '[.procs[]? | select(.write_Bps > 0)]' | head -c 1500
	echo; systemctl status "$UNIT" | head; cat "$DIR/cgroup.procs"
	finish
fi
head -1 "$W/unit.json" | jq -c '{unit, procs, write_Bps, to_disk_Bps, stat_write_Bps, bfq_weight, io_weight}' | sed 's/^/guest: one entry: /'

read -r sw pw nstat < <(jq -s '[(map(.stat_write_Bps // 0) | add), (map(.write_Bps) | add),
	(map(select(.stat_write_Bps != null)) | length)] | @tsv' -r "$W/unit.json")
check stat-present "$([ "$nstat" = "$n" ] && echo 1 || echo 0)" "stat_write_Bps set in $nstat of $n"
check stat-vs-procs "$(within "$sw" "$pw" 0.10)" \
	"io.stat write / its processes' write_Bps = $(ratio "$sw" "$pw") (summed over $n intervals)"
fio_bytes=$(jq '.jobs[0].write.io_bytes' "$W/fio.json")
fio_ms=$(jq '.jobs[0].write.runtime' "$W/fio.json")
fio_Bps=$(awk -v b="$fio_bytes" -v ms="$fio_ms" 'BEGIN { printf "%.0f", b / (ms / 1000) }')
mean=$(awk -v s="$sw" -v n="$n" 'BEGIN { printf "%.0f", s / n }')
check stat-vs-fio "$(within "$mean" "$fio_Bps" 0.10)" \
	"mean stat_write_Bps / fio's bytes per second = $(ratio "$mean" "$fio_Bps") ($mean / $fio_Bps)"
stat_w=$(tr ' ' '\n' < "$W/io.stat" | sed -n 's/^wbytes=//p')
check iostat-vs-fio "$(within "${stat_w:-0}" "$fio_bytes" 0.01)" \
	"the unit's io.stat wbytes at its end / fio's bytes = $(ratio "${stat_w:-0}" "$fio_bytes") (${stat_w:-none} / $fio_bytes)"
# The pauses for dirty pages are measured on this kernel too (6.1's
# balance_dirty_pages passes its thresholds one by one: the other of the
# two programs): a known figure, 0 for a direct writer.
thr=$(jq -r 'if .throttled_pct == null then "null" else .throttled_pct end' "$W/unit.json" | tail -1)
blk=$(tail -1 "$W/top.json" | jq -r '.blk.on')
check throttled-known "$([ "$blk" = true ] && [ "$thr" != null ] && echo 1 || echo 0)" \
	"block latency on: $blk; the unit's throttled_pct: $thr"
read -r bw iw src < <(jq -r '[.bfq_weight, .io_weight, .source] | @tsv' "$W/unit.json" | tail -1)
check bfq-weight "$([ "$bw" = "$BFQW" ] && echo 1 || echo 0)" "bfq_weight $bw, set $BFQW"
check io-weight "$([ "$iw" = "$IOW" ] && echo 1 || echo 0)" "io_weight $iw, set $IOW"
v1=$(jq -r '[.cgroups_why, (.cgroups[].source)] | join(" ")' "$W/top.json" | grep -c 'bound to cgroup v1')
check not-v1 "$([ "$v1" = 0 ] && echo 1 || echo 0)" "intervals saying 'bound to cgroup v1': $v1; source: $src"
jq -r '.cgroups[] | select(.path == "/") | "guest: the root cgroup: bfq_weight \(.bfq_weight), io_weight \(.io_weight); \(.source)"' \
	"$W/top.json" | tail -1
finish
