#!/bin/bash
# valgrind (memcheck) on a 30 s batch run with the probe on a loop device
# this test attaches, the process pane and the BPF part: no memory errors,
# nothing definitely or indirectly lost. tests/valgrind.supp holds only
# valgrind's misreadings of the bpf(2) system call made by libbpf (see
# there). valgrind cannot run the sanitizer build, so both passes of the
# suite run it on the plain binary.
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd valgrind losetup
setup_scratch

attach_loop 64 fill; L=$LOOP
N=$(basename "$L")
valgrind --leak-check=full --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect \
	--error-exitcode=9 --suppressions="$TOP/tests/valgrind.supp" \
	"$TOP/iosched-top" -b -d 1 -n 30 --disk "$N",vda --probe "$N" --procs 20 > "$SCRATCH/out" 2> "$SCRATCH/vg"
rc=$?
grep -E "ERROR SUMMARY|definitely lost|indirectly lost" "$SCRATCH/vg" | sed 's/^==[0-9]*== */  /'
[ $rc -eq 0 ] || { grep -B2 -A12 -E "Invalid|uninitialised|unaddressable|definitely|indirectly" "$SCRATCH/vg" | head -60 >&2; fail "valgrind: exit $rc"; }
grep -q "ERROR SUMMARY: 0 errors" "$SCRATCH/vg" || fail "valgrind reported errors"
# It really ran what it should have: probe figures, processes, block latency.
[ "$(grep -c "^$N " "$SCRATCH/out")" -ge 25 ] || fail "too few intervals under valgrind"
grep -q "READ p50/p99" "$SCRATCH/out" || fail "block latency never came on under valgrind"
grep -qE "^$N .* [0-9.]+(us|ms) +[0-9.]+(us|ms) " "$SCRATCH/out" ||
	fail "no probe p50/p99 of $N under valgrind; its last rows: $(grep "^$N " "$SCRATCH/out" | tail -n 3 | tr -s ' ')"
echo "PASS"
