#!/bin/bash
# Runs the suite: unit tests (plain and ASan+UBSan builds), then the
# integration and terminal tests against both binaries, all in one random
# order. Prints one line a test as it ends, then a table (test, result,
# seconds) and a summary; a skipped test is reported as skipped, never as
# passed. REQUIRE_ALL=1 (CI, which runs as root) turns every skip into a
# failure.
#
# After every test the suite looks for what the test left behind (see
# leftovers below) and fails the test if it finds anything, then removes it
# so the next test starts clean. At the end it checks once more, over the
# whole run.
#
# Usage: tests/run-all.sh [unit|system|fuzz|all]
#   TEST_SEED=N      repeat the order of an earlier run (its seed is printed)
#   TEST_ONLY=ERE    run only the tests whose label matches
#   TEST_TIMEOUT=S   seconds a test may take (default 600), then SIGTERM
#   TEST_PACKAGE_GLOB=...  the tests run once (default tests/package; empty: none)
#   TEST_GLOB=...    the system tests to run (default: tests/integration and
#                    tests/tui; the suite's own test points it elsewhere)
#   FUZZ_CHECK_SECS=S  seconds each libFuzzer harness runs (default 5)
#   TEST_BINS=...    the binaries the system tests run against (default:
#                    iosched-top build/san/iosched-top)
set -u
cd "$(dirname "$0")/.." || exit 1
what=${1:-all}
# One suite at a time on a machine: tests change kernel.task_delayacct,
# which is one for the whole system, and each suite's leftover check would
# take another suite's change for its own test's and undo it. A second
# `make check` (another clone, another terminal) waits for the first. The
# suite's own test runs this script inside a run that holds the lock.
LOCK=${IOSCHED_SUITE_LOCK:-/run/lock/iosched-suite.lock}
if [ -z "${IOSCHED_SUITE_LOCKED:-}" ] && exec 9>> "$LOCK"; then
	if ! flock -n 9; then
		echo "another make check is running on this machine ($LOCK); waiting for it to end"
		flock 9
	fi
	export IOSCHED_SUITE_LOCKED=1
fi
SEED=${TEST_SEED:-$(( (RANDOM << 15) | RANDOM ))}
TIMEOUT=${TEST_TIMEOUT:-600}
REPORTS=$PWD/build/test-reports

# Everything of the suite's lives under one root: the tests' scratch
# directories (IOSCHED_TEST_TMP, read by tests/lib/common.sh), any tmux
# socket made with -L (TMUX_TMPDIR), the configuration directory, and each
# test's output and sanitizer reports. On /var/tmp, not /tmp: loop devices
# with direct I/O need a file system with O_DIRECT.
SUITE=$(mktemp -d /var/tmp/iosched-suite.XXXXXX) || exit 1
mkdir "$SUITE/tmp" "$SUITE/tmux" "$SUITE/xdg" "$SUITE/logs"
# Tests run the tool as an unprivileged user on files in their scratch
# directories: the way there must be open to all (mktemp made it 0700).
chmod 755 "$SUITE" "$SUITE/tmp"
export IOSCHED_TEST_TMP=$SUITE/tmp TMUX_TMPDIR=$SUITE/tmux XDG_CONFIG_HOME=$SUITE/xdg
# No configuration file of the user's (or of sudo's caller) may change
# what the tests see.
unset SUDO_USER SUDO_UID SUDO_GID NO_COLOR TMUX
ASAN_BASE=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
UBSAN_BASE=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/tests/lsan.supp:print_suppressions=0}

DA_FILE=/proc/sys/kernel/task_delayacct
DA_START=$(cat $DA_FILE 2>/dev/null)
# The tests' cgroups (tests/lib/common.sh) are made beside where this
# script runs: in a cgroup of the suite's own (SUITE_CG/main), so that
# another suite running at the same time, and its clean-up, never sees
# ours. Without a writable cgroup v2 the tests fall back to their process
# trees and the process check is left out.
CG_ROOT=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
CG_HOME="" SUITE_CG="" CG_PARENT=""
if [ -n "$CG_ROOT" ] && [ -w "$CG_ROOT" ] && [ "$(id -u)" -eq 0 ]; then
	CG_HOME=$CG_ROOT$(sed -n 's/^0:://p' /proc/self/cgroup)
	CG_HOME=${CG_HOME%/}
	SUITE_CG=$CG_HOME/iosched-suite.$$
	if mkdir -p "$SUITE_CG/main" && echo $$ > "$SUITE_CG/main/cgroup.procs"; then
		CG_PARENT=$SUITE_CG/main
	else
		rmdir "$SUITE_CG/main" "$SUITE_CG" 2>/dev/null
		SUITE_CG=""
	fi
fi
TMUX_DEFAULT=/tmp/tmux-$(id -u)
tmux_default_sockets() { ls -A "$TMUX_DEFAULT" 2>/dev/null | grep '^iosched' | sort; }
TMUX_AT_START=$(tmux_default_sockets)

# leftovers: print one line for each thing of the suite's still here.
leftovers() {
	local m l cg
	awk -v r="$SUITE/" 'index($2, r) == 1 { print "mount " $2 " (" $1 ")" }' /proc/mounts
	losetup -l -n -O NAME,BACK-FILE 2>/dev/null | awk -v r="$SUITE/" 'index($2, r) == 1 { print $1, $2 }' |
		while read -r l f; do
			# Who holds it open (a detach waits for the last close).
			m=$(for p in $(fuser "$l" 2>/dev/null); do echo "$p $(cat /proc/$p/comm 2>/dev/null)"; done | xargs)
			echo "loop device $l on $f${m:+ (held open by pid $m)}"
		done
	for m in "$SUITE"/tmp/* "$SUITE"/tmp/.[!.]*; do [ -e "$m" ] && echo "scratch $m"; done
	for m in "$SUITE"/tmux/*/*; do [ -e "$m" ] && echo "tmux socket $m"; done
	comm -13 <(echo "$TMUX_AT_START") <(tmux_default_sockets) | sed "s|^|tmux socket $TMUX_DEFAULT/|"
	if [ -n "$CG_PARENT" ]; then
		for cg in "$CG_PARENT"/iosched-test.*; do
			[ -d "$cg" ] || continue
			for l in $(cat "$cg"/*/cgroup.procs "$cg"/cgroup.procs 2>/dev/null); do
				echo "process $l: $(ps -o args= -p "$l" 2>/dev/null | cut -c1-100)"
			done
			echo "cgroup $cg"
		done
	fi
	[ -z "$DA_START" ] || [ "$(cat $DA_FILE)" = "$DA_START" ] ||
		echo "kernel.task_delayacct is $(cat $DA_FILE), was $DA_START"
}

# new_leftovers: leftovers not already reported as impossible to remove.
STUCK=""
new_leftovers() { leftovers | grep -vxF -e "${STUCK:-//none//}"; }

# remove_leftovers: take away what leftovers found, so that the next test
# starts from a clean machine. Processes first: they hold mounts and loops.
remove_leftovers() {
	local cg m l
	if [ -n "$CG_PARENT" ]; then
		for cg in "$CG_PARENT"/iosched-test.*; do
			[ -d "$cg" ] || continue
			for m in "$cg"/*/cgroup.kill "$cg"/cgroup.kill; do echo 1 > "$m" 2>/dev/null; done
			for _ in $(seq 50); do cat "$cg"/*/cgroup.procs "$cg"/cgroup.procs 2>/dev/null | grep -q . || break; sleep 0.1; done
			rmdir "$cg"/* "$cg" 2>/dev/null
		done
	fi
	awk -v r="$SUITE/" 'index($2, r) == 1 { print $2 }' /proc/mounts | sort -r | while read -r m; do
		umount "$m" 2>/dev/null || umount -l "$m"
	done
	losetup -l -n -O NAME,BACK-FILE 2>/dev/null | awk -v r="$SUITE/" 'index($2, r) == 1 { print $1 }' |
		while read -r l; do
			# As a test's own cleanup does: back on none, then detached.
			echo none > "/sys/block/${l#/dev/}/queue/scheduler" 2>/dev/null
			losetup -d "$l"
		done
	rm -rf --one-file-system "$SUITE"/tmp/* "$SUITE"/tmp/.[!.]* "$SUITE"/tmux/* 2>/dev/null
	comm -13 <(echo "$TMUX_AT_START") <(tmux_default_sockets) | while read -r s; do
		tmux -S "$TMUX_DEFAULT/$s" kill-server 2>/dev/null; rm -f "$TMUX_DEFAULT/$s"
	done
	[ -z "$DA_START" ] || echo "$DA_START" > $DA_FILE 2>/dev/null
}

finish() {
	remove_leftovers
	rm -rf --one-file-system "$SUITE"
	if [ -n "$SUITE_CG" ]; then
		echo $$ > "$CG_HOME/cgroup.procs" 2>/dev/null
		rmdir "$SUITE_CG/main" "$SUITE_CG" 2>/dev/null
	fi
}
trap finish EXIT
trap 'exit 130' INT TERM HUP

# The tests: a label and a command each.
LABELS=() CMDS=() BINS=()
if [ "$what" = unit ] || [ "$what" = all ]; then
	for t in build/tests/test_* build/san/tests/test_*; do
		case $t in *.d) continue ;; esac # the compiler's dependency lists beside them
		LABELS+=("unit ${t#build/}") CMDS+=("$t") BINS+=("")
	done
fi
# Each libFuzzer harness (make fuzz-build) for a few seconds on its seed
# corpus: a regression in a reader of the tool's own files or the kernel's
# text shows here; `make fuzz` runs them for minutes.
if [ "$what" = fuzz ] || [ "$what" = all ]; then
	# One per seed corpus: a harness that was not built fails as missing.
	for t in tests/fuzz/corpus/*/; do
		t=$(basename "$t")
		LABELS+=("fuzz $t") CMDS+=("tests/fuzz/run-one.sh $t ${FUZZ_CHECK_SECS:-5}") BINS+=("build/fuzz/fuzz_$t")
	done
fi
if [ "$what" = system ] || [ "$what" = all ]; then
	# tests/package: once, against the plain binary (they build a package
	# from the tree; the binary only serves a scrape)
	for t in ${TEST_PACKAGE_GLOB-tests/package/test_*.sh}; do
		[ -e "$t" ] || continue
		LABELS+=("${t#tests/}") CMDS+=("$t") BINS+=("iosched-top")
	done
	for bin in ${TEST_BINS:-iosched-top build/san/iosched-top}; do
		for t in ${TEST_GLOB:-tests/integration/test_*.sh tests/tui/test_*.sh}; do
			LABELS+=("$bin ${t#tests/}") CMDS+=("$t") BINS+=("$bin")
		done
	done
fi
ORDER=()
mapfile -t ORDER < <(for i in "${!LABELS[@]}"; do echo "$i"; done |
	awk -v s="$SEED" 'BEGIN { srand(s) } { print rand(), $1 }' | sort -k1,1g | cut -d' ' -f2)
echo "test order: seed $SEED (TEST_SEED=$SEED make check repeats it)"

pass=0 fail=0 skip=0 failed="" table=() n=0 t_suite=$(date +%s)
for i in "${ORDER[@]}"; do
	label=${LABELS[i]} cmd=${CMDS[i]} bin=${BINS[i]}
	[[ $label =~ ${TEST_ONLY:-.} ]] || continue
	n=$((n + 1))
	dir=$SUITE/logs/$n
	mkdir "$dir"
	read -ra argv <<< "$cmd" # a path of the repository's and plain words
	if [ ! -x "${argv[0]}" ] || { [ -n "$bin" ] && [ ! -x "$bin" ]; }; then
		echo "FAIL  $label: ${bin:-$cmd} missing (run make check)"
		fail=$((fail + 1)) failed="$failed $label" table+=("$label|FAIL|0")
		continue
	fi
	t0=$(date +%s.%N)
	IOSCHED_BIN=$bin ASAN_OPTIONS="$ASAN_BASE:log_path=$dir/asan" UBSAN_OPTIONS="$UBSAN_BASE:log_path=$dir/ubsan" \
		timeout -k 30 "$TIMEOUT" "${argv[@]}" > "$dir/out" 2>&1 < /dev/null 9>&-
	rc=$?
	secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
	[ $rc -eq 124 ] && echo "FAIL: no end after $TIMEOUT s (TEST_TIMEOUT)" >> "$dir/out"
	# A sanitizer report fails the test whatever its exit status (a tool
	# the test expected to fail may have died of the sanitizer instead),
	# and is kept.
	reports=$(ls "$dir"/asan.* "$dir"/ubsan.* 2>/dev/null)
	if [ -n "$reports" ]; then
		mkdir -p "$REPORTS"
		for r in $reports; do
			{ echo "--- sanitizer report $(basename "$r") ---"; cat "$r"; } >> "$dir/out"
			cp "$r" "$REPORTS/$(echo "$label" | tr ' /' '__').$(basename "$r")"
		done
		echo "(sanitizer reports kept in $REPORTS)" >> "$dir/out"
		[ $rc -eq 0 ] || [ $rc -eq 77 ] && rc=1
	fi
	left=$(new_leftovers)
	if [ -n "$left" ]; then
		echo "FAIL: left behind:" >> "$dir/out"
		echo "$left" | sed 's/^/  /' >> "$dir/out"
		remove_leftovers
		# What even the removal could not take away is this test's
		# failure alone: later tests are not failed for it again (the
		# end of the run reports it once more).
		STUCK=$(printf '%s\n%s' "$STUCK" "$(leftovers)" | sort -u | sed '/^$/d')
		[ $rc -eq 0 ] || [ $rc -eq 77 ] && rc=1
	fi
	if [ $rc -eq 0 ]; then
		pass=$((pass + 1)) result=ok
		echo "ok    $label"
		grep -E '^  ' "$dir/out" | sed 's/^/      /'
	elif [ $rc -eq 77 ]; then
		skip=$((skip + 1)) result=skip
		echo "skip  $label: $(grep -m1 '^SKIP' "$dir/out")"
	else
		fail=$((fail + 1)) result=FAIL failed="$failed $label"
		echo "FAIL  $label (exit $rc)"
		sed 's/^/      /' "$dir/out"
	fi
	table+=("$label|$result|$secs")
done

# The whole run: anything left that a test's own check could not see.
left=$(leftovers)
if [ -n "$left" ]; then
	echo "FAIL  the suite left behind:"
	echo "$left" | sed 's/^/      /'
	fail=$((fail + 1)) failed="$failed (suite-level leftovers)"
fi

echo
printf '%-58s %-6s %8s\n' TEST RESULT SECONDS
for row in "${table[@]}"; do
	IFS='|' read -r l r s <<< "$row"
	printf '%-58s %-6s %8s\n' "$l" "$r" "$s"
done
echo "test order: seed $SEED; $(( $(date +%s) - t_suite )) s in all"
echo "passed $pass, skipped $skip, failed $fail"
[ $fail -eq 0 ] || { echo "failed:$failed"; exit 1; }
if [ $skip -gt 0 ] && [ "${REQUIRE_ALL:-0}" = 1 ]; then
	echo "REQUIRE_ALL=1: $skip test(s) skipped; here every test must run"
	exit 1
fi
exit 0
