# Driving the full-screen view in tmux, for the tests under tests/tui.
# Source after common.sh; call tmux_start CMD (a private server, 120x40).

# The server's socket lives in the test's scratch directory (-S, not -L:
# a -L socket stays in /tmp/tmux-UID after its server is gone), so the
# cleanup removes it with the directory.
SOCK="tui"
tsock() { echo "$SCRATCH/tmux-$SOCK"; }
T() { tmux -S "$(tsock)" "$@"; }
screen() { T capture-pane -p -t main; }
keys() { T send-keys -t main "$@"; }

# tmux_start CMD: run CMD in a fresh session; its exit status lands in
# $SCRATCH/rc. The server is killed when the test ends.
tmux_start() {
	on_exit "tmux -S $(tsock) kill-server"
	T -f /dev/null new-session -d -s main -x "${TMUX_W:-120}" -y "${TMUX_H:-40}" \
		"$1; echo \$? > $SCRATCH/rc; sleep 60"
}

# tmux_restart CMD: end the session and start CMD in a server of its own
# (the old server may still be going away).
tmux_restart() {
	rm -f "$SCRATCH/rc"
	T kill-server 2>/dev/null
	SOCK="r$RANDOM"
	tmux_start "$1"
}

# wait_for PATTERN [SECONDS]: poll the screen until it shows PATTERN (ERE).
wait_for() {
	local n=$(( ${2:-5} * 10 ))
	for _ in $(seq "$n"); do screen | grep -qE -- "$1" && return 0; sleep 0.1; done
	echo "--- screen ---"; screen; echo "---"
	return 1
}

# wait_exit [SECONDS]: the program's exit status, or fail.
wait_exit() {
	local n=$(( ${1:-5} * 10 ))
	for _ in $(seq "$n"); do [ -e "$SCRATCH/rc" ] && { cat "$SCRATCH/rc"; return 0; }; sleep 0.1; done
	fail "did not exit"
}

# select_disk NAME: press j until the detail line names NAME.
select_disk() {
	for _ in $(seq 20); do screen | tail -n 3 | grep -q "^$1: " && return 0; keys j; sleep 0.15; done
	fail "cannot select $1 with j"
}

clock() { screen | head -n1 | grep -oE '[0-9]{2}:[0-9]{2}:[0-9]{2}'; }

