#!/bin/bash
# Runs inside the guest that tests/guest/check-guest boots (a pure cgroup
# v2 Debian 12 with its own 6.1 kernel, bfq and kyber as modules), as root
# at boot from a one-shot unit. The parts named in /opt/iosched/parts (all
# by default), in this order:
#   refusal  the kernel with bfq not loaded: what asks for it is refused
#            before anything changes (tests/guest/refusal.sh)
#   suite    the suite's tests that switch schedulers, run here where
#            other_sched picks bfq: bfq's own settings put back, the picker
#            and ] walking past bfq, signals with bfq set
#   ab       the A/B of none against bfq with its defaults, deciding bfq's
#            fresh-reader effect (tests/guest/ab_fresh.sh)
#   units    the units pane on pure cgroup v2 with the io controller:
#            io.stat, io.weight, io.bfq.weight, w and its undo
#            (tests/guest/units.sh)
#   demo     --demo-disk on null_blk: its reads under the writer's load
#            on every scheduler, nothing left at any exit
#            (tests/guest/demo.sh)
# Prints "ok    NAME" or "FAIL  NAME" a test (a failure's output after
# it, indented), then "N passed, N failed" and GUEST-DONE.
set -u
export TERM=linux IOSCHED_BIN=/opt/iosched/iosched-top LC_ALL=C.UTF-8
G=/opt/iosched/tests
PARTS=$(cat /opt/iosched/parts 2>/dev/null || echo "refusal suite ab units demo")
W=/run/iosched-guest
mkdir -p "$W"
passed=0 failed=0

# run NAME SCRIPT: one test script, its verdict from its exit status.
run() {
	local t0=$SECONDS rc
	bash "$2" > "$W/out" 2>&1
	rc=$?
	if [ "$rc" = 0 ]; then
		echo "ok    $1 ($((SECONDS - t0)) s)"
		grep '^  ' "$W/out"
		passed=$((passed + 1))
	else
		echo "FAIL  $1 (exit $rc, $((SECONDS - t0)) s)"
		sed 's/^/      /' "$W/out" | tail -40
		failed=$((failed + 1))
	fi
}

# lines SCRIPT: a script that prints its own ok/FAIL lines, counted.
lines() {
	local l
	while IFS= read -r l; do
		echo "$l"
		case $l in "ok    "*) passed=$((passed + 1)) ;; "FAIL  "*) failed=$((failed + 1)) ;; esac
	done < <(bash "$1" 2>&1)
}

echo "guest: kernel $(uname -r), systemd $(systemctl --version | awk 'NR == 1 { print $2 }'), /sys/fs/cgroup is $(stat -f -c %T /sys/fs/cgroup) with $(cat /sys/fs/cgroup/cgroup.controllers)"
for part in $PARTS; do
	case $part in
	refusal) run "no bfq loaded: refusals" "$G/guest/refusal.sh" ;;
	suite)
		# as a distribution's kernel has them once asked for: bfq and kyber
		modprobe bfq && modprobe kyber-iosched
		for t in tui/test_switch.sh tui/test_restore.sh integration/test_kill_restore.sh; do
			run "bfq: $t" "$G/$t"
		done
		;;
	ab) modprobe bfq && modprobe kyber-iosched; run "bfq: A/B none,bfq puts the fresh readers ahead on bfq" "$G/guest/ab_fresh.sh" ;;
	units) lines "$G/guest/units.sh" ;;
	demo) modprobe bfq; run "null_blk: --demo-disk" "$G/guest/demo.sh" ;;
	*) echo "FAIL  unknown part '$part'"; failed=$((failed + 1)) ;;
	esac
done
echo "$passed passed, $failed failed"
echo GUEST-DONE
