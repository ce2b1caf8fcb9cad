#!/bin/bash
# timing-margins.sh [RUNS [TESTS-ERE]]: where the suite's timing bounds come from. Runs
# each test that checks a time RUNS times (default 20: half with the plain
# binary, half with the ASan+UBSan one, which is the slower), prints the
# figure each run measured, the worst, and the bound the test uses. Run it
# under load, as the bounds are meant to hold there:
#   tests/alongside.sh tests/timing-margins.sh
# Needs root, like the tests. A bound at or below the worst seen is
# reported as TOO TIGHT and the exit status is 1.
set -u
cd "$(dirname "$0")/.." || exit 1
RUNS=${1:-20}
ONLY=${2:-.} # an ERE: only the checks of the tests it matches
make --no-print-directory all sanitize >/dev/null || exit 1
# The sanitizer settings of tests/run-all.sh (its leak suppressions above all).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/tests/lsan.supp:print_suppressions=0}

# test | note that carries the figure (ERE, the figure in its first group
# of digits) | the bound the test checks
CHECKS=(
	"integration/test_cli.sh|first batch sample after (-?[0-9.]+) ms|400"
	"integration/test_hotplug.sh|appeared (-?[0-9.]+) s after the attach|0.9"
	"integration/test_hotplug.sh|gone (-?[0-9.]+) s after the detach|0.9"
	"integration/test_probe_detach.sh|detached (-?[0-9.]+) s after losetup -d|0.25"
	"tui/test_hung_disk.sh|q to exit: ([0-9.]+) s|2.5"
	"tui/test_slow_switch.sh|between clock changes: ([0-9.]+)s|2.25"
)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# Each test once per run, the figures of all its checks from that output.
for t in $(printf '%s\n' "${CHECKS[@]}" | cut -d'|' -f1 | uniq | grep -E -- "$ONLY"); do
	for i in $(seq "$RUNS"); do
		bin=iosched-top
		[ $((i % 2)) = 0 ] && bin=build/san/iosched-top
		IOSCHED_BIN=$bin "tests/$t" > "$out/run" 2>&1
		rc=$?
		echo "$t run $i ($bin): exit $rc" >&2
		[ $rc = 0 ] || sed 's/^/    /' "$out/run" >&2
		cat "$out/run" >> "$out/$(basename "$t").all"
	done
done
status=0
printf '%-36s %-40s %8s %8s  %s\n' TEST FIGURE WORST BOUND "ALL RUNS"
for c in "${CHECKS[@]}"; do
	IFS='|' read -r t re bound <<< "$c"
	[ -e "$out/$(basename "$t").all" ] || continue
	vals=$(grep -oE "$re" "$out/$(basename "$t").all" | grep -oE -- '-?[0-9]+(\.[0-9]+)?' | head -n "$RUNS")
	worst=$(echo "$vals" | sort -g | tail -n1)
	verdict=""
	awk -v w="${worst:-0}" -v b="$bound" 'BEGIN { exit !(w < b) }' || { verdict="TOO TIGHT"; status=1; }
	printf '%-36s %-40s %8s %8s  %s %s\n' "$t" "${re%% (*}" "${worst:-none}" "$bound" "$(echo $vals)" "$verdict"
done
exit $status
