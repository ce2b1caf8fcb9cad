#!/bin/bash
# Under sudo the invoking user's configuration file is theirs (issue 17):
# a throwaway user (SUDO_USER, SUDO_UID, SUDO_GID set as sudo sets them)
# writes options into their ~/.config/iosched-top/config. Root takes the
# harmless ones (delay) and refuses, naming the file, the line and the
# option, every one that would have root run their command, write or read
# a path they name (a theme by path, a recording to replay), or change a
# kernel setting: nothing is run, written, read or changed. W in the full screen writes the file with the user's rights: a
# ~/.config/iosched-top that is a symlink to a root-owned directory gets
# nothing in it, and a config that is a symlink to a root-only file is not
# copied into a file of the user's.
# suite-budget: 10
. "$(dirname "$0")/../lib/common.sh"
private_mounts "$@"
. "$(dirname "$0")/../lib/tmux.sh"
need_root
need_cmd useradd userdel tmux
setup_scratch

throwaway_user iosched-t
run() { SUDO_USER=$U SUDO_UID=$uid SUDO_GID=$gid "$BIN" "$@"; }
conf() { printf '%s\n' "$@" > "$H/.config/iosched-top/config"; chown "$U:" "$H/.config/iosched-top/config"; }

conf "delay 0.3"
run -b -n 2 --no-probe > "$SCRATCH/ok.txt" 2>&1 || fail "a harmless key refused: $(cat "$SCRATCH/ok.txt")"
grep -q "interval 0.3" "$SCRATCH/ok.txt" || fail "the user's delay was not taken"

for line in "record $SCRATCH/evil.rec" "prometheus-textfile $SCRATCH/evil.prom" "startup touch $SCRATCH/ran" \
	"udev-rules-file $SCRATCH/evil.rules" "set vda=none" "load-dir $SCRATCH" "probe-file /etc/shadow" "enable-delayacct" \
	"theme /etc/shadow" "replay /etc/shadow"; do
	conf "delay 0.3" "$line"
	run -b -n 1 --no-probe > /dev/null 2> "$SCRATCH/err"
	rc=$?
	key=${line%% *}
	[ $rc -eq 2 ] && grep -q "config:2: $key is not taken from a file root does not own (this one is uid $uid's)" "$SCRATCH/err" ||
		fail "'$line' from the user's file: exit $rc: $(cat "$SCRATCH/err")"
done
for f in evil.rec evil.prom ran evil.rules; do [ -e "$SCRATCH/$f" ] && fail "$f was made"; done
# a theme by name is one of the tool's own: taken
conf "theme mono"
run -b -n 1 --no-probe > /dev/null 2> "$SCRATCH/err" || fail "'theme mono' refused: $(cat "$SCRATCH/err")"

# W, with the user's config directory a symlink to a directory of root's
mkdir -m 755 "$SCRATCH/rootdir"
rm -rf "$H/.config/iosched-top"
ln -s "$SCRATCH/rootdir" "$H/.config/iosched-top"
chown -h "$U:" "$H/.config/iosched-top"
tmux_start "SUDO_USER=$U SUDO_UID=$uid SUDO_GID=$gid $BIN --no-probe -d 0.5"
wait_for "Processes \(all disks\)" 10 || fail "the full screen did not start"
keys W
wait_for "cannot (write|make)" 5 || fail "W did not refuse: $(screen | tail -n 2)"
keys q
wait_exit > /dev/null
[ -z "$(ls -A "$SCRATCH/rootdir")" ] || fail "W wrote into root's directory: $(ls -la "$SCRATCH/rootdir")"
# and with config a symlink to a root-only file
rm "$H/.config/iosched-top"; mkdir "$H/.config/iosched-top"; chown "$U:" "$H/.config/iosched-top"
printf 'root secret\n' > "$SCRATCH/secret"; chmod 600 "$SCRATCH/secret"
ln -s "$SCRATCH/secret" "$H/.config/iosched-top/config"; chown -h "$U:" "$H/.config/iosched-top/config"
# (read with the user's rights, through no symlink: refused at the start,
# so W never has its text to keep)
run -b -n 1 --no-probe > /dev/null 2> "$SCRATCH/err"
rc=$?
[ $rc -eq 2 ] && grep -q "config: Too many levels of symbolic links" "$SCRATCH/err" ||
	fail "a config that is a symlink to a root-only file: exit $rc: $(cat "$SCRATCH/err")"
[ "$(cat "$SCRATCH/secret")" = "root secret" ] || fail "the root-only file changed"
note "$(cat "$SCRATCH/err")"
# and with the config directory a symlink to a directory root's group may
# read (0750 root:root, config 0640): read with the user's group only, not
# root's supplementary ones (sudo gives root group 0), so not read at all
if id -G | tr ' ' '\n' | grep -qx 0; then
	mkdir -m 750 "$SCRATCH/g0"
	printf 'record %s\n' "$SCRATCH/g0.rec" > "$SCRATCH/g0/config"; chmod 640 "$SCRATCH/g0/config"
	rm -rf "$H/.config/iosched-top"
	ln -s "$SCRATCH/g0" "$H/.config/iosched-top"; chown -h "$U:" "$H/.config/iosched-top"
	run -b -n 1 --no-probe > /dev/null 2> "$SCRATCH/err" || fail "the run failed: $(cat "$SCRATCH/err")"
	[ -e "$SCRATCH/g0.rec" ] && fail "root's group let the user's link give a root-only option"
fi
# and to a file of root's anyone may read: read, but what is found in the
# user's place gives no root-only option, whoever owns it
mkdir -m 755 "$SCRATCH/pub"
printf 'record %s\n' "$SCRATCH/pub.rec" > "$SCRATCH/pub/config"; chmod 644 "$SCRATCH/pub/config"
rm -rf "$H/.config/iosched-top"
ln -s "$SCRATCH/pub" "$H/.config/iosched-top"; chown -h "$U:" "$H/.config/iosched-top"
run -b -n 1 --no-probe > /dev/null 2> "$SCRATCH/err"
rc=$?
[ $rc -eq 2 ] && grep -q "record is not taken from a file in the invoking user's place (sudo)" "$SCRATCH/err" ||
	fail "a link to root's config gave record: exit $rc: $(cat "$SCRATCH/err")"
[ -e "$SCRATCH/pub.rec" ] && fail "the recording was made"
echo "PASS"
