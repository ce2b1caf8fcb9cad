#!/bin/bash
# The terminal is given back on a crash signal: SIGSEGV and SIGABRT sent
# to the full screen end it with the signal's own outcome (not a clean
# exit), and the terminal is out of the alternate screen, with its cursor,
# echo and line editing back; then SIGTERM, SIGINT and SIGHUP end it with
# exit 0 and the same clean terminal.
# suite-budget: 10
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/tmux.sh"
need_root
need_cmd tmux
setup_scratch

# Each signal gets a server of its own; its cleanup is registered here, in
# the test's shell (run_and_signal runs in a command substitution, whose
# on_exit would be lost).
new_server() { # SIGNAL
	T kill-server 2>/dev/null; SOCK="crash-$1"
	on_exit "tmux -S $(tsock) kill-server"
}
run_and_signal() { # SIGNAL: start, send it, check the terminal; prints the exit status
	rm -f "$SCRATCH/rc" "$SCRATCH/stty"
	T -f /dev/null new-session -d -s main -x 100 -y 30 \
		"ASAN_OPTIONS=\"\$ASAN_OPTIONS:log_path=$SCRATCH/expected-$1\" $BIN -d 0.5 --no-probe --no-config; echo \$? > $SCRATCH/rc; stty -a > $SCRATCH/stty; sleep 60"
	wait_for "^DEVICE" || fail "$1: no table"
	[ "$(T display -p -t main '#{alternate_on}')" = 1 ] || fail "$1: the full screen is not on the alternate screen"
	pkill -"$1" -f "^$BIN -d 0.5 --no-probe --no-config" || fail "$1: not sent"
	for _ in $(seq 300); do [ -s "$SCRATCH/stty" ] && break; sleep 0.1; done
	[ -s "$SCRATCH/stty" ] || fail "$1: did not end"
	[ "$(T display -p -t main '#{alternate_on}')" = 0 ] || fail "$1: left on the alternate screen"
	[ "$(T display -p -t main '#{cursor_flag}')" = 1 ] || fail "$1: cursor left hidden"
	grep -qw -- "-echo" "$SCRATCH/stty" && fail "$1: echo left off"
	grep -qw -- "-icanon" "$SCRATCH/stty" && fail "$1: line editing left off"
	cat "$SCRATCH/rc"
}

for sig in SEGV ABRT; do
	new_server $sig
	rc=$(run_and_signal $sig) || exit 1
	rc=${rc##*$'\n'}
	[ "$rc" != 0 ] || fail "$sig: exit status 0, as if nothing happened"
	# The sanitizer build reports the re-raised SIGSEGV (it must: the
	# report is what a real crash leaves). That report is expected here,
	# so it goes to the test's own file (log_path above), not to the
	# suite's, which would count it as a failure; it must name the signal.
	report=$(cat "$SCRATCH/expected-$sig".* 2>/dev/null)
	[ -z "$report" ] || echo "$report" | grep -q "SEGV" || fail "$sig: unexpected sanitizer report: $report"
	note "SIG$sig: exit status $rc, terminal restored${report:+, with its sanitizer report}"
done
for sig in TERM INT HUP; do
	new_server $sig
	rc=$(run_and_signal $sig) || exit 1
	rc=${rc##*$'\n'}
	[ "$rc" = 0 ] || fail "$sig: exit status $rc, not 0"
done
echo "PASS"
