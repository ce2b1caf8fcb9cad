#!/bin/bash
# Runs the suite: unit tests (plain and ASan+UBSan builds), then the
# integration and terminal tests against both binaries. Prints one line a
# test and a summary; a skipped test is reported as skipped, never as passed.
# REQUIRE_ALL=1 (CI, which runs as root) turns every skip into a failure.
# Usage: tests/run-all.sh [unit|system|all]
set -u
cd "$(dirname "$0")/.." || exit 1
what=${1:-all}
pass=0 fail=0 skip=0 failed=""
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/tests/lsan.supp:print_suppressions=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# No configuration file of the user's (or of sudo's caller) may change
# what the tests see: an empty one of the suite's own.
XDG_CONFIG_HOME=$(mktemp -d /tmp/iosched-suite-config.XXXXXX)
export XDG_CONFIG_HOME
unset SUDO_USER SUDO_UID SUDO_GID NO_COLOR
trap 'rm -rf "$XDG_CONFIG_HOME"' EXIT

run() { # run LABEL CMD...
	label=$1; shift
	log=$(mktemp)
	"$@" > "$log" 2>&1
	rc=$?
	if [ $rc -eq 0 ]; then
		pass=$((pass + 1)); echo "ok    $label"
	elif [ $rc -eq 77 ]; then
		skip=$((skip + 1)); echo "skip  $label: $(grep -m1 '^SKIP' "$log")"
	else
		fail=$((fail + 1)); failed="$failed $label"; echo "FAIL  $label (exit $rc)"; sed 's/^/      /' "$log"
	fi
	[ $rc -eq 0 ] && grep -E '^  ' "$log" | sed 's/^/      /'
	rm -f "$log"
}

if [ "$what" = unit ] || [ "$what" = all ]; then
	for t in build/tests/test_* build/san/tests/test_*; do
		[ -x "$t" ] || { echo "FAIL  $t missing (run make check)"; fail=$((fail + 1)); continue; }
		run "unit ${t#build/}" "$t"
	done
fi
if [ "$what" = system ] || [ "$what" = all ]; then
	for bin in iosched-top build/san/iosched-top; do
		[ -x "$bin" ] || { echo "FAIL  $bin missing (run make check)"; fail=$((fail + 1)); continue; }
		for t in tests/integration/test_*.sh tests/tui/test_*.sh; do
			IOSCHED_BIN=$bin run "$bin ${t#tests/}" "$t"
		done
	done
fi

echo "passed $pass, skipped $skip, failed $fail"
[ $fail -eq 0 ] || { echo "failed:$failed"; exit 1; }
if [ $skip -gt 0 ] && [ "${REQUIRE_ALL:-0}" = 1 ]; then
	echo "REQUIRE_ALL=1: $skip test(s) skipped; here every test must run"
	exit 1
fi
exit 0
