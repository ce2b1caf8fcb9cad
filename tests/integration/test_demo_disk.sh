#!/bin/bash
# --demo-disk on this machine's kernel, whichever it offers: where null_blk
# can be loaded, a short batch run shows the demo disk (its name in the
# JSON, probed) and leaves nothing behind (no configfs directory, no disk,
# no writer, null_blk as loaded as before); where it cannot, the run says
# what to install and exits 1, with nothing made. Either way: without root
# "needs root", exit 1; with --disk, --probe, --no-probe, --ab, --replay or
# --read-only, exit 2 naming the option. The demo itself (the schedulers
# apart on the chart, every exit) is tested in the guest
# (tests/guest/demo.sh).
# suite-budget: 20
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd jq setpriv
setup_scratch

left() {
	ls /sys/kernel/config/nullb 2>/dev/null | grep '^iosched-demo-'
	ls /sys/block | grep '^iosched-demo-'
	pgrep -x iosched-demo-wr
}
was=$([ -d /sys/module/null_blk ] && echo 1 || echo 0)
"$BIN" --demo-disk --json -d 0.5 -n 3 > "$SCRATCH/out" 2> "$SCRATCH/err"
rc=$?
if [ $rc -eq 0 ]; then
	n=$(jq -r '.disks[].name' "$SCRATCH/out" | grep -E '^(iosched-demo-|nullb)' | sort -u)
	[ -n "$n" ] || fail "the demo run showed no demo disk: $(tail -n 1 "$SCRATCH/out" | jq -c '[.disks[].name]')"
	note "null_blk here: the run showed $n"
else
	[ $rc -eq 1 ] || fail "--demo-disk exited $rc: $(cat "$SCRATCH/err")"
	grep -q -- "--demo-disk: this kernel has no null_blk module (modprobe null_blk failed): install" "$SCRATCH/err" ||
		fail "no word on what to install: $(cat "$SCRATCH/err")"
	note "no null_blk here: $(cat "$SCRATCH/err")"
fi
[ -z "$(left)" ] || fail "left behind: $(left)"
[ "$([ -d /sys/module/null_blk ] && echo 1 || echo 0)" = "$was" ] || fail "null_blk's loaded state changed"

setpriv --reuid=65534 --regid=65534 --clear-groups "$BIN" --demo-disk > /dev/null 2> "$SCRATCH/err"
[ $? -eq 1 ] && grep -q -- "--demo-disk: needs root" "$SCRATCH/err" || fail "as nobody: $(cat "$SCRATCH/err")"
for o in "--disk vda" "--probe vda" --no-probe "--ab none,kyber" "--replay $SCRATCH/out" --read-only; do
	"$BIN" --demo-disk $o > /dev/null 2> "$SCRATCH/err"
	rc=$?
	[ $rc -eq 2 ] && grep -q -- "--demo-disk makes its own disk and probes it: ${o%% *} conflicts with it" "$SCRATCH/err" ||
		fail "--demo-disk $o: exit $rc: $(cat "$SCRATCH/err")"
done
[ -z "$(left)" ] || fail "left behind: $(left)"
echo "PASS"
