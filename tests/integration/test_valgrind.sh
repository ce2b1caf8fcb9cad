#!/bin/bash
# valgrind (memcheck) on a 30 s batch run with the probe on a loop device
# this test attaches, the process pane and the BPF part: no memory errors,
# nothing definitely or indirectly lost. tests/valgrind.supp holds only
# valgrind's misreadings of the bpf(2) system call made by libbpf (see
# there). valgrind cannot run the sanitizer build, so both passes of the
# suite run it on the plain binary.
# 40 ticks: block latency comes on once the BPF part has loaded, which
# under valgrind took 14 s quiet and 16-19 s with tests/alongside.sh's
# load (three runs, after blklat parsed the kernel's BTF once instead of
# five times; before, 27 s quiet, and a CI run saw none in 30 ticks).
# suite-binaries: plain   memcheck cannot run a binary built with the sanitizers
# suite-budget: 75
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd valgrind losetup jq
setup_scratch

attach_loop 64 fill; L=$LOOP
N=$(basename "$L")
valgrind --leak-check=full --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect \
	--error-exitcode=9 --suppressions="$TOP/tests/valgrind.supp" \
	"$TOP/iosched-top" -b -d 1 -n 40 --disk "$N",vda --probe "$N" --procs 20 --record "$SCRATCH/rec" \
	> "$SCRATCH/out" 2> "$SCRATCH/vg"
rc=$?
grep -E "ERROR SUMMARY|definitely lost|indirectly lost" "$SCRATCH/vg" | sed 's/^==[0-9]*== */  /'
[ $rc -eq 0 ] || { grep -B2 -A12 -E "Invalid|uninitialised|unaddressable|definitely|indirectly" "$SCRATCH/vg" | head -60 >&2; fail "valgrind: exit $rc"; }
grep -q "ERROR SUMMARY: 0 errors" "$SCRATCH/vg" || fail "valgrind reported errors"
# It really ran what it should have: probe figures, processes, block latency.
[ "$(grep -c "^$N " "$SCRATCH/out")" -ge 35 ] || fail "too few intervals under valgrind"
grep -q "READ p50/p99" "$SCRATCH/out" || fail "block latency never came on under valgrind"
# The probe's figures: each row's p50 and p99 against the number of reads
# in its 10 s window, which the recording of the same ticks holds (p10's
# first field): p50 shown from 2 reads, p99 from 100 (hist_enough), "-" below. The count,
# not a guess from r/s: valgrind runs one thread at a time, so on a busy
# machine the probe thread gets few turns, and another iosched-top may be
# probing the same device (tests/alongside.sh). At least one row must have
# a p50: the probe ran.
grep "^$N " "$SCRATCH/out" |
	grep -oE ' [0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +([0-9.]+(us|ms|s)|-) +(>?[0-9.]+(us|ms|s)|-) ' |
	awk '{ print $6, $7 }' > "$SCRATCH/rows"
tail -n +2 "$SCRATCH/rec" | jq -r --arg n "$N" '.disks[] | select(.name == $n) | .p10[0]' > "$SCRATCH/ns" ||
	fail "cannot read the recording"
[ "$(grep -c "^$N " "$SCRATCH/out")" -eq "$(wc -l < "$SCRATCH/rows")" ] || fail "cannot read the p50, p99 columns"
[ "$(wc -l < "$SCRATCH/rows")" -eq "$(wc -l < "$SCRATCH/ns")" ] ||
	fail "$(wc -l < "$SCRATCH/rows") rows but $(wc -l < "$SCRATCH/ns") recorded ticks"
paste -d' ' "$SCRATCH/ns" "$SCRATCH/rows" | awk '
	{ fig50 = $2 != "-"; fig99 = $3 != "-" }
	$3 ~ /^>/ { next } # a read in flight longer than the window: shown as such
	fig50 != ($1 >= 2) || fig99 != ($1 >= 100) { bad = bad " row " NR " (" $0 ")" }
	$1 >= 1 { ran++ } $1 >= 100 { p99++ }
	END { printf "  probe figures in %d rows, p99 in %d\n", ran, p99
	      if (bad != "") { print "  wrong:" bad; exit 1 }
	      if (!ran) { print "  the probe never read"; exit 1 } }' ||
	fail "probe figures of $N under valgrind do not follow the reads in the window (reads p50 p99): $(paste -d' ' "$SCRATCH/ns" "$SCRATCH/rows" | tr '\n' ';')"
echo "PASS"
