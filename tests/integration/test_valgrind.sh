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
# The probe's p50 must show. Its p99 needs 100 reads in the 10 s window,
# and valgrind runs one thread at a time: on a busy machine the probe thread
# can get fewer turns than that (seen once in a loaded suite run). So p99 is
# required wherever the disk's own r/s (the probe is its only reader) summed
# over the last 10 rows reaches 120, a fifth above what p99 needs.
grep "^$N " "$SCRATCH/out" |
	grep -oE ' [0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +([0-9.]+(us|ms|s)|-) +([0-9.]+(us|ms|s)|-) ' |
	awk '{ print $1, $6, $7 }' > "$SCRATCH/rows"
[ "$(grep -c "^$N " "$SCRATCH/out")" -eq "$(wc -l < "$SCRATCH/rows")" ] || fail "cannot read the r/s, p50, p99 columns"
grep -qE ' [0-9.]+(us|ms) ' "$SCRATCH/rows" ||
	fail "no probe p50 of $N under valgrind; its last rows: $(grep "^$N " "$SCRATCH/out" | tail -n 3 | tr -s ' ')"
awk '{ rs[NR] = $1; sum += $1; if (NR > 10) sum -= rs[NR - 10]
	if (NR >= 10 && sum >= 120) { due++; if ($3 == "-") bad = bad " row " NR } }
	END { printf "  p99 due in %d rows\n", due; if (bad != "") { print "  no p99 in" bad; exit 1 } }' "$SCRATCH/rows" ||
	fail "p99 missing where 120 probe reads were in the window; rows (r/s p50 p99): $(tr '\n' ';' < "$SCRATCH/rows")"
echo "PASS"
