#!/bin/bash
# run-one.sh TARGET [SECS]: run the libFuzzer harness build/fuzz/fuzz_TARGET
# for SECS seconds (default FUZZ_SECS, else 10) on a copy of its committed
# seed corpus (tests/fuzz/corpus/TARGET), so the committed corpus is never
# changed by a run. The copy and any crash input go to a scratch directory
# (under IOSCHED_TEST_TMP when the suite runs this, else build/fuzz); a
# crash input is kept in build/test-reports and its path printed. Exit 0
# when the time ran out with no crash, 1 on a crash, 2 when the harness is
# missing. Used by `make fuzz` and by `make check` (tests/run-all.sh).
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
T=${1:?usage: run-one.sh TARGET [SECS]}
SECS=${2:-${FUZZ_SECS:-10}}
BIN=$TOP/build/fuzz/fuzz_$T
[ -x "$BIN" ] || { echo "FAIL: $BIN missing (make fuzz-build; needs clang)"; exit 2; }
[ -d "$TOP/tests/fuzz/corpus/$T" ] || { echo "FAIL: no seed corpus tests/fuzz/corpus/$T"; exit 2; }
BASE=${IOSCHED_TEST_TMP:-$TOP/build/fuzz}
mkdir -p "$BASE" || exit 2
W=$(mktemp -d "$BASE/fuzz-$T.XXXXXX") || exit 2
trap 'rm -rf "$W"' EXIT
trap 'exit 130' INT TERM HUP
mkdir "$W/corpus" && cp "$TOP/tests/fuzz/corpus/$T"/* "$W/corpus/" || exit 2
if "$BIN" -max_total_time="$SECS" -print_final_stats=1 -artifact_prefix="$W/crash-" \
	"$W/corpus" > "$W/log" 2>&1; then
	echo "  fuzz $T: $(sed -n 's/^stat::number_of_executed_units: *//p' "$W/log") inputs in $SECS s, no crash"
	exit 0
fi
grep -E "ERROR|SUMMARY|Test unit written" "$W/log" | head -20
mkdir -p "$TOP/build/test-reports"
for c in "$W"/crash-*; do
	[ -e "$c" ] || continue
	cp "$c" "$TOP/build/test-reports/fuzz-$T-$(basename "$c")"
	echo "crash input kept: build/test-reports/fuzz-$T-$(basename "$c") (run $BIN on it to repeat)"
done
echo "FAIL: fuzz $T crashed"
exit 1
