#!/bin/bash
# W in the full screen under sudo keeps the lines of the user's old
# configuration file that it does not write, so it reads that file first:
# with the user's rights and the user's group only, as the start does.
# Root's supplementary groups (sudo gives root group 0) must not come with
# it. Here a throwaway user (SUDO_USER, SUDO_UID, SUDO_GID set as sudo sets
# them; the tool run with group 0 among its groups, as sudo runs it) makes
# their config a hard link to a 0640 root:root file (possible with
# fs.protected_hardlinks=0, set for the test and put back). W must write a
# file of the user's without a line of the root file, and leave the root
# file as it was.
# suite-budget: 10
. "$(dirname "$0")/../lib/common.sh"
private_mounts "$@"
. "$(dirname "$0")/../lib/tmux.sh"
need_root
need_cmd useradd userdel tmux setpriv
setup_scratch

HL=/proc/sys/fs/protected_hardlinks
[ -w "$HL" ] || skip "cannot set fs.protected_hardlinks"
throwaway_user iosched-l

printf 'root secret 7f3a\n' > "$SCRATCH/secret"
chown root:root "$SCRATCH/secret"; chmod 640 "$SCRATCH/secret"
before=$(sha256sum < "$SCRATCH/secret")
old=$(cat "$HL")
echo 0 > "$HL" || skip "cannot set fs.protected_hardlinks"
on_exit "echo $old > $HL"
C=$H/.config/iosched-top/config
setpriv --reuid="$uid" --regid="$gid" --clear-groups ln "$SCRATCH/secret" "$C" || fail "the user could not make the hard link"
echo "$old" > "$HL"

tmux_start "setpriv --groups 0 env SUDO_USER=$U SUDO_UID=$uid SUDO_GID=$gid $BIN --no-probe -d 0.5"
wait_for "Processes \(all disks\)" 10 || fail "the full screen did not start"
keys W
wait_for "saved theme|not saved" 5 || fail "W said nothing: $(screen | tail -n 2)"
note "W: $(screen | grep -oE '(saved theme|not saved).*' | head -n1)"
keys q
wait_exit > /dev/null

[ "$(sha256sum < "$SCRATCH/secret")" = "$before" ] || fail "the root file was changed"
[ "$(stat -c '%U:%G %a' "$SCRATCH/secret")" = "root:root 640" ] || fail "the root file is now $(stat -c '%U:%G %a' "$SCRATCH/secret")"
if [ -e "$C" ]; then
	grep -q "secret" "$C" && fail "the root file's content is in the user's config: $(cat "$C")"
	[ "$(stat -c %i "$C")" != "$(stat -c %i "$SCRATCH/secret")" ] || fail "the config is still the root file"
	[ "$(stat -c %U "$C")" = "$U" ] || fail "the new config belongs to $(stat -c %U "$C")"
	note "the user's config now: $(xargs < "$C")"
fi
echo "PASS"
