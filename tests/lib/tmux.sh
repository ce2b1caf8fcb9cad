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
# SECONDS is what it takes alone; the wait is three times that: a
# sanitized build beside another test on a loaded CI machine is slower,
# and a wait that is not met fails the test anyway.
wait_for() {
	local n=$(( ${2:-5} * 30 ))
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


# select_unit NAME: j or k until the units pane's selected row (the one
# drawn in reverse video) is the unit NAME. The pane is sorted again at
# each refresh and the selection follows the unit, so under load the row
# to reach may move; each step is judged on a fresh capture.
select_unit() {
	local at
	for _ in $(seq 40); do
		at=$(T capture-pane -p -e -t main | awk -v n="$1" '
			{ p = $0; gsub(/\033\[[0-9;]*m/, "", p); split(p, f, " ") }
			p ~ /^UNIT +PROCS/ { on = 1; next }
			on { k++; if ($0 ~ /\033\[([0-9]+;)*7m/) s = k; if (f[1] == n) w = k }
			END { print (w ? (w == s ? "here" : (w < s ? "k" : "j")) : "none") }')
		case $at in
		here) return 0 ;;
		none) sleep 0.2 ;;
		*) keys "$at"; sleep 0.15 ;;
		esac
	done
	fail "cannot select the unit $1 with j and k"
}

# tui_loop SIZE_MB [fill] [CMD...]: a screen test's start on a loop device
# of its own: root, tmux and losetup (and each CMD) needed, a scratch
# directory, the device attached (attach_loop): L the device, N its name.
tui_loop() {
	local size=$1 fill=""
	shift
	[ "${1:-}" = fill ] && { fill=fill; shift; }
	need_root
	need_cmd tmux losetup "$@"
	setup_scratch
	attach_loop "$size" $fill
	L=$LOOP N=$(basename "$LOOP")
}
