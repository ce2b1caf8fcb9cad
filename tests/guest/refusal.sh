#!/bin/bash
# In the guest, with the bfq module not loaded (the kernel would load it
# on a write of "bfq" to a queue's scheduler file): a loop device offers
# none, mq-deadline and kyber, and what asks for bfq (--ab none,bfq,
# --set D=bfq, a variant with bfq's own setting) is refused with what the
# disk offers, exit 2, before anything changes: the disk keeps its
# scheduler and the module stays unloaded (nothing wrote "bfq").
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd losetup modprobe
setup_scratch

bfq_loaded() { grep -q '^bfq ' /proc/modules; }
bfq_loaded && { modprobe -r bfq || fail "cannot unload bfq: $(grep '^bfq ' /proc/modules)"; }
attach_loop 64; N=$(basename "$LOOP")
offered=$(cat "/sys/block/$N/queue/scheduler")
! grep -qw bfq <<< "$offered" || fail "$N offers bfq with the module unloaded: $offered"

refused() { # WHAT WANT-TEXT ARGS...: exit 2, the text, nothing changed
	local what=$1 want=$2 out rc
	shift 2
	out=$("$BIN" "$@" 2>&1); rc=$?
	[ "$rc" = 2 ] || fail "$what: exit $rc, not 2: $out"
	grep -qF -- "$want" <<< "$out" || fail "$what: no '$want' in: $out"
	[ "$(cat "/sys/block/$N/queue/scheduler")" = "$offered" ] || fail "$what changed $N: $(cat "/sys/block/$N/queue/scheduler")"
	bfq_loaded && fail "$what loaded bfq"
	note "$what: $(head -n1 <<< "$out")"
}
refused "--ab none,bfq" "$N offers no scheduler 'bfq'; it offers: $offered" --ab none,bfq --disk "$N" --load none
refused "--ab none,bfq:low_latency=0" "offers no scheduler 'bfq'" --ab none,bfq:low_latency=0 --disk "$N" --load none
refused "--set $N=bfq" "$N has no scheduler 'bfq'" -b -n 1 --no-probe --disk "$N" --set "$N=bfq"
echo "PASS"
