#!/bin/bash
# W (save the configuration) makes the directories of the configuration
# file one at a time from a checked directory, never through a symbolic
# link: with XDG_CONFIG_HOME pointing through a link another user planted
# in a sticky directory (fs.protected_symlinks off for the test, put back
# after) to a root-only directory, W makes nothing there (it used to make
# the directories by path before the write was refused), and says why it
# did not save. Through a plain path it makes them (0700) and saves.
# suite-budget: 15
. "$(dirname "$0")/../lib/common.sh"
private_mounts "$@"
. "$(dirname "$0")/../lib/tmux.sh"
need_root
need_cmd tmux setpriv
setup_scratch

symlinks_unprotected
chmod 755 "$SCRATCH"
T=$SCRATCH/tmp V=$SCRATCH/victim
mkdir -m 1777 "$T"
mkdir -m 700 "$V"
setpriv --reuid=65534 --regid=65534 --clear-groups ln -s "$V" "$T/l" || fail "nobody could not plant the link"

# save XDG: W in the full screen with XDG_CONFIG_HOME=XDG; what it said.
save() {
	tmux_restart "env XDG_CONFIG_HOME=$1 $BIN --no-probe -d 0.5"
	wait_for "Processes \(all disks\)" 10 || fail "the full screen did not start"
	keys W
	wait_for "saved theme|not saved" 5 || fail "W said nothing: $(screen | tail -n 2)"
	said=$(screen | grep -oE '(saved theme|not saved).*' | head -n1)
	keys q
	wait_exit > /dev/null
}

save "$T/l/cfg"
[ -z "$(ls -A "$V")" ] || fail "W made directories through nobody's link in a root-only directory: $(find "$V" | xargs)"
echo "$said" | grep -q "not saved" || fail "W through the link: $said"
note "through the link: $said"

save "$SCRATCH/plain/cfg"
[ -f "$SCRATCH/plain/cfg/iosched-top/config" ] || fail "W through a plain path saved nothing: $said"
[ "$(stat -c %a "$SCRATCH/plain/cfg/iosched-top")" = 700 ] || fail "the directory made is $(stat -c %a "$SCRATCH/plain/cfg/iosched-top")"
echo "PASS"
