#!/bin/bash
# Runs the suite: unit tests (plain and ASan+UBSan builds), the static
# checks (tests/static: no root, no device), a few seconds of each fuzz
# harness, then the integration and terminal tests against real devices,
# all in one random order, two at a time (TEST_JOBS). Prints one line a test
# as it ends, then a table (test, result, seconds, budget; slowest first)
# and a summary; a skipped test is reported as skipped, never as passed.
# REQUIRE_ALL=1 (CI, which runs as root) turns every skip into a failure.
#
# A script says how the runner treats it in lines of its header:
#   # suite-budget: S       seconds it should take; over it, the table flags
#                           it (it does not fail). Unit tests and fuzz
#                           targets have theirs below.
#   # suite-alone: WHY      it runs with no other test beside it (it changes
#                           a setting of the whole machine, or times
#                           something another test would disturb)
#   # suite-binaries: plain san   WHY
#                           the binaries it runs against. Without the line,
#                           the ASan+UBSan build alone: it runs every path
#                           the plain one does and also catches memory
#                           errors. The plain binary is for what is about the
#                           shipped build (valgrind, the package, timing).
#
# After every test the suite looks for what the test left behind (see
# leftovers below) and fails the test if it finds anything, then removes it.
# Each test has a directory of its own (scratch, tmux sockets, sanitizer
# logs) and, as root with cgroup v2, a cgroup of its own, so what is left
# is known to be that test's even with another test running. At the end it
# checks once more, over the whole run.
#
# Usage: tests/run-all.sh [quick|unit|static|system|fuzz|all]
#   quick is unit and static: what needs no root and no device.
#   TEST_SEED=N      repeat the order of an earlier run (its seed is printed)
#   TEST_ONLY=ERE    run only the tests whose label matches
#   TEST_JOBS=N      tests run side by side (default 2; 1: one at a time)
#   TEST_TIMEOUT=S   seconds a test may take (default 600), then SIGTERM
#   TEST_PACKAGE_GLOB=...  the tests run once (default tests/package; empty: none)
#   TEST_GLOB=...    the system tests to run (default: tests/integration and
#                    tests/tui; the suite's own test points it elsewhere)
#   FUZZ_CHECK_SECS=S  seconds each libFuzzer harness runs (default 5)
#   TEST_BINS=...    run every system test against each of these binaries
#                    (e.g. "iosched-top build/san/iosched-top"), whatever
#                    its suite-binaries line says
set -u
cd "$(dirname "$0")/.." || exit 1
what=${1:-all}
case $what in quick|unit|static|system|fuzz|all) ;; *)
	echo "usage: $0 [quick|unit|static|system|fuzz|all]" >&2; exit 2 ;;
esac
T_WALL=$(date +%s)
# One suite at a time on a machine: tests change kernel.task_delayacct,
# which is one for the whole system, and each suite's leftover check would
# take another suite's change for its own test's and undo it. A second
# `make check` (another clone, another terminal) waits for the first. The
# suite's own test runs this script inside a run that holds the lock.
# The tiers that need no root (quick, unit, static) take no lock: they
# change nothing of the machine's, may run beside a make check, and so do
# not check its settings either (the other suite's tests change them).
LOCK=${IOSCHED_SUITE_LOCK:-/run/lock/iosched-suite.lock}
MACHINE_CHECKS=1
case $what in quick|unit|static) MACHINE_CHECKS="" ;; esac
if [ -n "$MACHINE_CHECKS" ] && [ -z "${IOSCHED_SUITE_LOCKED:-}" ] && exec 9>> "$LOCK"; then
	if ! flock -n 9; then
		echo "another make check is running on this machine ($LOCK); waiting for it to end"
		flock 9
	fi
	export IOSCHED_SUITE_LOCKED=1
fi
SEED=${TEST_SEED:-$(( (RANDOM << 15) | RANDOM ))}
TIMEOUT=${TEST_TIMEOUT:-600}
JOBS=${TEST_JOBS:-2}
[[ $JOBS =~ ^[1-9][0-9]*$ ]] || { echo "TEST_JOBS=$JOBS: give a whole number of 1 or more" >&2; exit 2; }
REPORTS=$PWD/build/test-reports
# Budgets of the tests that have no header to write one in: a unit test
# binary runs in a second or two (the ASan build of the verdict's
# permutation tests takes longest); a fuzz target runs its seconds and
# starts up.
BUDGET_UNIT=20
BUDGET_FUZZ=$(( ${FUZZ_CHECK_SECS:-5} + 5 ))
BUDGET_SCRIPT=30 # a script without a suite-budget line

# Everything of the suite's lives under one root: each test's directory
# (its scratch directories, IOSCHED_TEST_TMP, read by tests/lib/common.sh;
# any tmux socket made with -L, TMUX_TMPDIR; its configuration directory)
# and each test's output and sanitizer reports. On /var/tmp, not /tmp: loop
# devices with direct I/O need a file system with O_DIRECT.
SUITE=$(mktemp -d /var/tmp/iosched-suite.XXXXXX) || exit 1
mkdir "$SUITE/t" "$SUITE/logs"
# Tests run the tool as an unprivileged user on files in their scratch
# directories: the way there must be open to all (mktemp made it 0700).
chmod 755 "$SUITE" "$SUITE/t"
# No configuration file of the user's (or of sudo's caller) may change
# what the tests see.
unset SUDO_USER SUDO_UID SUDO_GID NO_COLOR TMUX
ASAN_BASE=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
UBSAN_BASE=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/tests/lsan.supp:print_suppressions=0}

. tests/lib/delayacct.sh # da_held_elsewhere, da_base
DA_START=$(da_base)
# Each test runs in a cgroup of its own under one of the suite's
# (SUITE_CG/job.N; the runner itself stays in SUITE_CG/main), so that a
# process a test left, even one that left its process tree, is found and
# known to be that test's, and another suite's clean-up never sees ours.
# Without a writable cgroup v2 the tests fall back to their process trees
# and the process check is left out.
CG_ROOT=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
CG_HOME="" SUITE_CG=""
if [ -n "$CG_ROOT" ] && [ -w "$CG_ROOT" ] && [ "$(id -u)" -eq 0 ]; then
	CG_HOME=$CG_ROOT$(sed -n 's/^0:://p' /proc/self/cgroup)
	CG_HOME=${CG_HOME%/}
	SUITE_CG=$CG_HOME/iosched-suite.$$
	if ! { mkdir -p "$SUITE_CG/main" && echo $$ > "$SUITE_CG/main/cgroup.procs"; }; then
		rmdir "$SUITE_CG/main" "$SUITE_CG" 2>/dev/null
		SUITE_CG=""
	fi
fi
TMUX_DEFAULT=/tmp/tmux-$(id -u)
tmux_default_sockets() { ls -A "$TMUX_DEFAULT" 2>/dev/null | grep '^iosched' | sort; }
TMUX_AT_START=$(tmux_default_sockets)
# Loop devices' writeback limits (their bdi outlives a detach: a test that
# sets them and leaves them throttles the next test on that number):
# "7:N strict_limit max_ratio" of each.
loop_bdis() {
	local b
	for b in /sys/class/bdi/7:*; do
		[ -r "$b/strict_limit" ] && echo "${b##*/} $(cat "$b/strict_limit") $(cat "$b/max_ratio")"
	done
}
BDI_AT_START=$(loop_bdis)
# the ones changed since the start (a loop device new since has 0 100)
bdi_changed() { comm -13 <(echo "$BDI_AT_START" | sort) <(loop_bdis | sort) | grep -v ' 0 100$'; }

# leftovers DIR [CGROUP]: one line for each thing of a test's still under
# its directory DIR, or in its cgroup CGROUP.
leftovers() {
	local root=$1 cg=${2:-} m l f p
	awk -v r="$root/" 'index($2, r) == 1 { print "mount " $2 " (" $1 ")" }' /proc/mounts
	losetup -l -n -O NAME,BACK-FILE 2>/dev/null | awk -v r="$root/" 'index($2, r) == 1 { print $1, $2 }' |
		while read -r l f; do
			# Who holds it open (a detach waits for the last close).
			m=$(for p in $(fuser "$l" 2>/dev/null); do echo "$p $(cat /proc/$p/comm 2>/dev/null)"; done | xargs)
			echo "loop device $l on $f${m:+ (held open by pid $m)}"
		done
	find "$root/tmp" -mindepth 1 -maxdepth 1 2>/dev/null | sed 's/^/scratch /'
	find "$root/tmux" -mindepth 2 -maxdepth 2 2>/dev/null | sed 's/^/tmux socket /'
	if [ -n "$cg" ] && [ -d "$cg" ]; then
		for p in $(find "$cg" -name cgroup.procs -exec cat {} + 2>/dev/null); do
			echo "process $p: $(ps -o args= -p "$p" 2>/dev/null | cut -c1-100)"
		done
		find "$cg" -mindepth 1 -type d -name 'iosched-test.*' -prune 2>/dev/null | sed 's/^/cgroup /'
	fi
}

# Left on the machine as a whole: the suite cannot tell whose (with tests
# side by side) beyond "one that was running".
global_leftovers() {
	[ -n "$MACHINE_CHECKS" ] || return 0
	comm -13 <(echo "$TMUX_AT_START") <(tmux_default_sockets) | sed "s|^|tmux socket $TMUX_DEFAULT/|"
	[ -z "$DA_START" ] || [ "$(cat $DA_FILE)" = "$DA_START" ] || da_held_elsewhere ||
		echo "kernel.task_delayacct is $(cat $DA_FILE), was $DA_START"
	bdi_changed | sed 's|^\([^ ]*\) \([^ ]*\) \([^ ]*\)$|writeback limits of loop device bdi \1 left changed: strict_limit \2, max_ratio \3|'
}

# remove_leftovers DIR [CGROUP]: take away what leftovers found.
# Processes first: they hold mounts and loops.
remove_leftovers() {
	local root=$1 cg=${2:-} m l
	if [ -n "$cg" ] && [ -d "$cg" ]; then
		echo 1 > "$cg/cgroup.kill" 2>/dev/null
		for _ in $(seq 50); do
			find "$cg" -name cgroup.procs -exec cat {} + 2>/dev/null | grep -q . || break
			sleep 0.1
		done
		find "$cg" -mindepth 1 -depth -type d -exec rmdir {} \; 2>/dev/null
	fi
	awk -v r="$root/" 'index($2, r) == 1 { print $2 }' /proc/mounts | sort -r | while read -r m; do
		umount "$m" 2>/dev/null || umount -l "$m"
	done
	losetup -l -n -O NAME,BACK-FILE 2>/dev/null | awk -v r="$root/" 'index($2, r) == 1 { print $1 }' |
		while read -r l; do
			# As a test's own cleanup does: back on none, then detached.
			echo none > "/sys/block/${l#/dev/}/queue/scheduler" 2>/dev/null
			losetup -d "$l"
		done
	find "$root/tmp" "$root/tmux" -mindepth 1 -maxdepth 1 -exec rm -rf --one-file-system {} + 2>/dev/null
}
remove_global_leftovers() {
	[ -n "$MACHINE_CHECKS" ] || return 0
	comm -13 <(echo "$TMUX_AT_START") <(tmux_default_sockets) | while read -r s; do
		tmux -S "$TMUX_DEFAULT/$s" kill-server 2>/dev/null; rm -f "$TMUX_DEFAULT/$s"
	done
	[ -z "$DA_START" ] || da_held_elsewhere || echo "$DA_START" > $DA_FILE 2>/dev/null
	local b rest
	bdi_changed | while read -r b rest; do
		echo 0 > "/sys/class/bdi/$b/strict_limit"
		echo 100 > "/sys/class/bdi/$b/max_ratio"
	done
}

# The tests running now: their number -> pid, and the other way.
declare -A RUNNING=() NUM_OF_PID=()
finish() {
	local n
	for n in "${!RUNNING[@]}"; do
		kill -TERM "${RUNNING[$n]}" 2>/dev/null
		remove_leftovers "$SUITE/t/$n" "${SUITE_CG:+$SUITE_CG/job.$n}"
	done
	wait 2>/dev/null
	for n in "$SUITE"/t/*; do [ -d "$n" ] && remove_leftovers "$n"; done
	remove_global_leftovers
	rm -rf --one-file-system "$SUITE"
	if [ -n "$SUITE_CG" ]; then
		echo $$ > "$CG_HOME/cgroup.procs" 2>/dev/null
		find "$SUITE_CG" -mindepth 1 -depth -type d -exec rmdir {} \; 2>/dev/null
		rmdir "$SUITE_CG" 2>/dev/null
	fi
}
trap finish EXIT
trap 'exit 130' INT TERM HUP

# header_line SCRIPT KEY: the value of "# suite-KEY: ..." in SCRIPT's header.
header_line() { sed -n "s/^# suite-$2: *//p" "$1" | head -n1; }

# The tests: a label, a command, the binary it runs against, whether it
# runs alone, and its budget.
LABELS=() CMDS=() BINS=() ALONE=() BUDGETS=()
add() { LABELS+=("$1") CMDS+=("$2") BINS+=("$3") ALONE+=("$4") BUDGETS+=("$5"); }
add_script() { # SCRIPT DEFAULT-BINARIES
	local t=$1 b bins budget alone=""
	budget=$(header_line "$t" budget | grep -oE '^[0-9]+')
	[ -n "$(header_line "$t" alone)" ] && alone=1
	bins=${TEST_BINS:-$(header_line "$t" binaries | grep -oE '^(plain|san)( (plain|san))*')}
	bins=${bins:-$2}
	for b in $bins; do
		case $b in plain) b=iosched-top ;; san) b=build/san/iosched-top ;; esac
		add "$b ${t#tests/}" "$t" "$b" "$alone" "${budget:-$BUDGET_SCRIPT}"
	done
}
if [ "$what" = unit ] || [ "$what" = quick ] || [ "$what" = all ]; then
	for t in build/tests/test_* build/san/tests/test_*; do
		case $t in *.d) continue ;; esac # the compiler's dependency lists beside them
		[ -e "$t" ] || continue
		# These set other processes' I/O priorities and undo them, the
		# undo following what inherited the value (any process of an
		# owner started since): beside each other, or their twin build,
		# each would put back the other's.
		alone=""
		case $t in */test_iofam | */test_iofork | */test_control) alone=1 ;; esac
		add "unit ${t#build/}" "$t" "" "$alone" "$BUDGET_UNIT"
	done
fi
if [ "$what" = static ] || [ "$what" = quick ] || [ "$what" = all ]; then
	# (against the plain binary: they read its --help, nothing else)
	for t in tests/static/test_*.sh; do
		add "${t#tests/}" "$t" iosched-top "" "$(header_line "$t" budget | grep -oE '^[0-9]+' || echo $BUDGET_SCRIPT)"
	done
fi
# Each libFuzzer harness (make fuzz-build) for a few seconds on its seed
# corpus: a regression in a reader of the tool's own files or the kernel's
# text shows here; `make fuzz` runs them for minutes.
if [ "$what" = fuzz ] || [ "$what" = all ]; then
	# One per seed corpus: a harness that was not built fails as missing.
	for t in tests/fuzz/corpus/*/; do
		t=$(basename "$t")
		add "fuzz $t" "tests/fuzz/run-one.sh $t ${FUZZ_CHECK_SECS:-5}" "build/fuzz/fuzz_$t" "" "$BUDGET_FUZZ"
	done
fi
if [ "$what" = system ] || [ "$what" = all ]; then
	# tests/package: once, against the plain binary (they build a package
	# from the tree; the binary only serves a scrape)
	for t in ${TEST_PACKAGE_GLOB-tests/package/test_*.sh}; do
		[ -e "$t" ] && add_script "$t" plain
	done
	for t in ${TEST_GLOB:-tests/integration/test_*.sh tests/tui/test_*.sh}; do
		[ -e "$t" ] && add_script "$t" san
	done
fi
# A random order, except that the tests with the largest budgets start
# first (in a random order of their own): one that started last would
# leave the other job idle while it ran.
LONG=45
ORDER=()
mapfile -t ORDER < <(for i in "${!LABELS[@]}"; do echo "$i ${BUDGETS[i]}"; done |
	awk -v s="$SEED" -v long="$LONG" 'BEGIN { srand(s) } { print ($2 >= long ? 0 : 1), rand(), $1 }' |
	sort -k1,1n -k2,2g | cut -d' ' -f3)
echo "test order: seed $SEED (TEST_SEED=$SEED make check repeats it); $JOBS at a time"

pass=0 fail=0 skip=0 failed="" table=() n=0 busy=0
declare -A IDX_OF=()

# launch I N: start test I as the run's Nth, in the background.
launch() {
	local i=$1 n=$2 dir=$SUITE/t/$2 log=$SUITE/logs/$2 cg="" argv
	mkdir -p "$dir/tmp" "$dir/tmux" "$dir/xdg" "$log"
	chmod 755 "$dir" "$dir/tmp"
	read -ra argv <<< "${CMDS[i]}" # a path of the repository's and plain words
	if [ -n "$SUITE_CG" ]; then
		cg=$SUITE_CG/job.$n
		mkdir "$cg" || cg=""
	fi
	date +%s.%N > "$log/start"
	(
		[ -z "$cg" ] || echo $BASHPID > "$cg/cgroup.procs"
		IOSCHED_TEST_TMP=$dir/tmp TMUX_TMPDIR=$dir/tmux XDG_CONFIG_HOME=$dir/xdg IOSCHED_BIN=${BINS[i]} \
			ASAN_OPTIONS="$ASAN_BASE:log_path=$log/asan" UBSAN_OPTIONS="$UBSAN_BASE:log_path=$log/ubsan" \
			timeout -k 30 "$TIMEOUT" "${argv[@]}" > "$log/out" 2>&1 < /dev/null 9>&-
		rc=$?
		date +%s.%N > "$log/end"
		exit $rc
	) &
	RUNNING[$n]=$! NUM_OF_PID[$!]=$n IDX_OF[$n]=$i
	busy=$((busy + 1))
}

# reap: wait for one running test to end and report it.
reap() {
	local pid rc n i dir log label secs reports left result others
	wait -n -p pid
	rc=$?
	n=${NUM_OF_PID[$pid]} i=${IDX_OF[$n]}
	unset "RUNNING[$n]" "NUM_OF_PID[$pid]"
	busy=$((busy - 1))
	dir=$SUITE/t/$n log=$SUITE/logs/$n label=${LABELS[i]}
	secs=$(awk -v a="$(cat "$log/start")" -v b="$(cat "$log/end" 2>/dev/null || date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
	[ $rc -eq 124 ] && echo "FAIL: no end after $TIMEOUT s (TEST_TIMEOUT)" >> "$log/out"
	# A sanitizer report fails the test whatever its exit status (a tool
	# the test expected to fail may have died of the sanitizer instead),
	# and is kept.
	reports=$(ls "$log"/asan.* "$log"/ubsan.* 2>/dev/null)
	if [ -n "$reports" ]; then
		mkdir -p "$REPORTS"
		for r in $reports; do
			{ echo "--- sanitizer report $(basename "$r") ---"; cat "$r"; } >> "$log/out"
			cp "$r" "$REPORTS/$(echo "$label" | tr ' /' '__').$(basename "$r")"
		done
		echo "(sanitizer reports kept in $REPORTS)" >> "$log/out"
		[ $rc -eq 0 ] || [ $rc -eq 77 ] && rc=1
	fi
	left=$(leftovers "$dir" "${SUITE_CG:+$SUITE_CG/job.$n}"; global_leftovers)
	if [ -n "$left" ]; then
		others=""
		[ $busy -gt 0 ] && others=" (what is not under its directory may be another running test's)"
		echo "FAIL: left behind$others:" >> "$log/out"
		echo "$left" | sed 's/^/  /' >> "$log/out"
		remove_leftovers "$dir" "${SUITE_CG:+$SUITE_CG/job.$n}"
		remove_global_leftovers
		[ $rc -eq 0 ] || [ $rc -eq 77 ] && rc=1
	fi
	rm -rf --one-file-system "$dir"
	[ -z "$SUITE_CG" ] || rmdir "$SUITE_CG/job.$n" 2>/dev/null
	if [ $rc -eq 0 ]; then
		pass=$((pass + 1)) result=ok
		echo "ok    $label"
		grep -E '^  ' "$log/out" | sed 's/^/      /'
	elif [ $rc -eq 77 ]; then
		skip=$((skip + 1)) result=skip
		echo "skip  $label: $(grep -m1 '^SKIP' "$log/out")"
	else
		fail=$((fail + 1)) result=FAIL failed="$failed $label"
		echo "FAIL  $label (exit $rc)"
		# the reason first: a report cut short (a CI page's tail, a
		# terminal) still says why, before the screen dumps and notes
		grep -m1 -E '^FAIL' "$log/out" | sed 's/^/      why: /'
		sed 's/^/      /' "$log/out"
	fi
	table+=("$label|$result|$secs|${BUDGETS[i]}")
}

for i in "${ORDER[@]}"; do
	label=${LABELS[i]} cmd=${CMDS[i]} bin=${BINS[i]}
	[[ $label =~ ${TEST_ONLY:-.} ]] || continue
	n=$((n + 1))
	read -ra argv <<< "$cmd"
	if [ ! -x "${argv[0]}" ] || { [ -n "$bin" ] && [ ! -x "$bin" ]; }; then
		echo "FAIL  $label: ${bin:-$cmd} missing (run make check)"
		fail=$((fail + 1)) failed="$failed $label" table+=("$label|FAIL|0|${BUDGETS[i]}")
		continue
	fi
	# A test that runs alone waits for the others to end, and the next
	# waits for it.
	limit=$JOBS
	[ -n "${ALONE[i]}" ] && limit=1
	while [ $busy -ge "$limit" ]; do reap; done
	launch "$i" "$n"
	[ -n "${ALONE[i]}" ] && reap
done
while [ $busy -gt 0 ]; do reap; done

# The whole run: anything left that a test's own check could not see.
left=$({ leftovers "$SUITE"; for d in "$SUITE"/t/*; do [ -d "$d" ] && leftovers "$d"; done; } | sort -u; global_leftovers)
if [ -n "$left" ]; then
	echo "FAIL  the suite left behind:"
	echo "$left" | sed 's/^/      /'
	fail=$((fail + 1)) failed="$failed (suite-level leftovers)"
fi

echo
printf '%-58s %-6s %8s %7s\n' TEST RESULT SECONDS BUDGET
over=0 total=0
for row in "${table[@]}"; do echo "$row"; done | sort -t'|' -k3,3gr | while IFS='|' read -r l r s b; do
	flag=""
	awk -v s="$s" -v b="$b" 'BEGIN { exit !(s > b) }' && flag="  over budget"
	printf '%-58s %-6s %8s %7s%s\n' "$l" "$r" "$s" "$b" "$flag"
done
for row in "${table[@]}"; do
	IFS='|' read -r _ _ s b <<< "$row"
	total=$(awk -v t="$total" -v s="$s" 'BEGIN { printf "%.1f", t + s }')
	awk -v s="$s" -v b="$b" 'BEGIN { exit !(s > b) }' && over=$((over + 1))
done
echo "test order: seed $SEED; ${#table[@]} tests, $total s of test time, $(( $(date +%s) - T_WALL )) s wall time ($JOBS at a time)"
[ $over -eq 0 ] || echo "$over test(s) over their budget (flagged above; a budget is in the test's header, or in tests/run-all.sh)"
echo "passed $pass, skipped $skip, failed $fail"
[ $fail -eq 0 ] || { echo "failed:$failed"; exit 1; }
if [ $skip -gt 0 ] && [ "${REQUIRE_ALL:-0}" = 1 ]; then
	echo "REQUIRE_ALL=1: $skip test(s) skipped; here every test must run"
	exit 1
fi
exit 0
