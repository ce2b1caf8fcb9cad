#!/bin/bash
# Under sudo the invoking user's configuration file is theirs (issue 17):
# a throwaway user (SUDO_USER, SUDO_UID, SUDO_GID set as sudo sets them)
# writes options into their ~/.config/iosched-top/config. Root takes the
# harmless ones (delay) and refuses, naming the file, the line and the
# option, every one that would have root run their command, write or read
# a path they name, or change a kernel setting: nothing is run, written or
# changed.
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd useradd userdel
setup_scratch

U=iosched-t$$
H=$SCRATCH/home
useradd -M -d "$H" -s /usr/sbin/nologin "$U" || skip "cannot add a user"
on_exit "userdel $U"
mkdir -p "$H/.config/iosched-top"
chown -R "$U:" "$H"
chmod 755 "$SCRATCH"
uid=$(id -u "$U"); gid=$(id -g "$U")
run() { SUDO_USER=$U SUDO_UID=$uid SUDO_GID=$gid "$BIN" "$@"; }
conf() { printf '%s\n' "$@" > "$H/.config/iosched-top/config"; chown "$U:" "$H/.config/iosched-top/config"; }

conf "delay 0.3"
run -b -n 2 --no-probe > "$SCRATCH/ok.txt" 2>&1 || fail "a harmless key refused: $(cat "$SCRATCH/ok.txt")"
grep -q "interval 0.3" "$SCRATCH/ok.txt" || fail "the user's delay was not taken"

for line in "record $SCRATCH/evil.rec" "prometheus-textfile $SCRATCH/evil.prom" "startup touch $SCRATCH/ran" \
	"udev-rules-file $SCRATCH/evil.rules" "set vda=none" "load-dir $SCRATCH" "probe-file /etc/shadow" "enable-delayacct"; do
	conf "delay 0.3" "$line"
	run -b -n 1 --no-probe > /dev/null 2> "$SCRATCH/err"
	rc=$?
	key=${line%% *}
	[ $rc -eq 2 ] && grep -q "config:2: $key is not taken from a file root does not own (this one is uid $uid's)" "$SCRATCH/err" ||
		fail "'$line' from the user's file: exit $rc: $(cat "$SCRATCH/err")"
done
for f in evil.rec evil.prom ran evil.rules; do [ -e "$SCRATCH/$f" ] && fail "$f was made"; done
note "$(cat "$SCRATCH/err")"
echo "PASS"
