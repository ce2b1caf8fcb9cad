#!/bin/bash
# The suite's own checks can fail: tests/run-all.sh run on three tests
# (tests/fixtures/suite), two made to misbehave, must report those two as failed, list
# everything the first left behind (mount, loop device, scratch directory,
# a process that left the process tree, a tmux socket, task_delayacct),
# print and keep the sanitizer report of the second, flag the third as
# over its budget without failing it, fail as a whole, and leave nothing
# of any behind. Two at a time, as make check runs: what the first leaves
# is found in its own directory and cgroup while the others run.
# suite-budget: 10
# suite-alone: its first fixture changes kernel.task_delayacct
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd cc losetup mkfs.ext4 tmux
setup_scratch
[ -n "$(cgroup2_root)" ] || skip "needs cgroup v2 (the runner finds escaped processes through it)"

# The tests' checks of JSON (jq -e) must fail when there is no JSON at all.
if printf '' | jq -e . > /dev/null; then fail "jq -e passes on empty input: a check of a line the tool never wrote would pass"; fi

OUT=$SCRATCH/out
DA_BEFORE=$(cat $DA_FILE)
# (the outer run's TEST_ONLY must not filter the inner one)
env -u TEST_ONLY TEST_GLOB="tests/fixtures/suite/test_*.sh" TEST_PACKAGE_GLOB= TEST_BINS=iosched-top REQUIRE_ALL=0 TEST_SEED=1 TEST_JOBS=2 \
	"$TOP/tests/run-all.sh" system > "$OUT" 2>&1
rc=$?
[ $rc = 1 ] || fail "the runner exited $rc: $(cat "$OUT")"
expect() { grep -qE -- "$1" "$OUT" || fail "the runner's output lacks /$1/: $(cat "$OUT")"; }
expect '^FAIL  iosched-top fixtures/suite/test_leaves_all.sh'
expect '^FAIL  iosched-top fixtures/suite/test_sanitizer.sh'
expect 'left behind:'
expect '^ +mount /var/tmp/iosched-suite\.[^/]+/t/[0-9]+/tmp/iosched-test\.[^/]+/mnt '
expect '^ +loop device /dev/loop[0-9]+ on /var/tmp/iosched-suite\.'
expect '^ +scratch /var/tmp/iosched-suite\.[^/]+/t/[0-9]+/tmp/iosched-test\.'
expect '^ +process [0-9]+: sleep 300'
expect '^ +tmux socket /var/tmp/iosched-suite\.[^/]+/t/[0-9]+/tmux/tmux-0/leak'
[ -w $DA_FILE ] && expect "^ +kernel.task_delayacct is $((1 - DA_BEFORE)), was $DA_BEFORE"
expect 'heap-use-after-free'
expect 'sanitizer reports kept in .*/build/test-reports'
expect '^iosched-top fixtures/suite/test_leaves_all.sh +FAIL +[0-9.]+ +[0-9]+$'
expect '^iosched-top fixtures/suite/test_slow.sh +ok +[0-9.]+ +1  over budget$'
expect '^1 test\(s\) over their budget'
expect '^passed 1, skipped 0, failed 2$'
note "reported: $(grep -cE '^ +(mount|loop device|scratch|process|tmux socket|kernel|cgroup) ' "$OUT") leftovers and a sanitizer report"

# Kept, then removed here (it is this test's doing).
ls "$TOP"/build/test-reports/iosched-top_fixtures_suite_test_sanitizer.sh.asan.* >/dev/null 2>&1 ||
	fail "no kept report in build/test-reports"
rm -f "$TOP"/build/test-reports/iosched-top_fixtures_suite_test_sanitizer.sh.asan.*
rmdir "$TOP/build/test-reports" 2>/dev/null

# And the runner took it all away.
root=$(grep -oE '/var/tmp/iosched-suite\.[A-Za-z0-9]+' "$OUT" | head -n1)
[ -n "$root" ] || fail "no suite root named in the output"
! grep -q " $root" /proc/mounts || fail "a mount under $root is left"
! losetup -l -n -O BACK-FILE | grep -q "^$root" || fail "a loop device on $root is left"
[ ! -e "$root" ] || fail "$root is left"
[ "$(cat $DA_FILE)" = "$DA_BEFORE" ] || fail "task_delayacct left at $(cat $DA_FILE)"
for pid in $(sed -nE 's/^ +process ([0-9]+): .*/\1/p' "$OUT"); do
	[ "$(running "$pid")" = 0 ] || fail "process $pid is still running: $(ps -o args= -p "$pid")"
done
echo "PASS"
