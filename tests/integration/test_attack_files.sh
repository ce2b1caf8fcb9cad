#!/bin/bash
# Files root writes in a directory another user can write (issue 17): the
# other user (nobody) plants symlinks to a root-only file, and a file of
# their own, where root's --record and --prometheus-textfile will write.
# Neither follows the symlinks (the victim is unchanged, byte for byte),
# neither truncates nobody's file, both say why and exit 2; a recording is
# created 0600 (it holds command lines), the Prometheus file 0644, and the
# Prometheus temporary is a fresh name (a planted PATH.tmp is left alone).
# The directory is nobody's own (0755, as a home directory under sudo:
# SUDO_UID says nobody ran sudo, else another user's directory is refused
# outright, see test_attack_round2); in a sticky one (/tmp) the kernel's
# protected_symlinks would stop root already. A directory everyone may write that is not sticky is refused
# outright (anyone could swap the file between the tool's steps). An
# output refused so ends the run before a --set or --enable-delayacct
# changed anything.
# suite-budget: 10
. "$(dirname "$0")/../lib/common.sh"
private_mounts "$@"
need_root
need_cmd setpriv sha256sum losetup
setup_scratch

chmod 755 "$SCRATCH"
D=$SCRATCH/shared
mkdir -m 0755 "$D"
chown 65534:65534 "$D"
mkdir -m 0777 "$SCRATCH/open"
for out in "--record $SCRATCH/open/rec" "--prometheus-textfile $SCRATCH/open/m.prom"; do
	"$BIN" --json -d 0.2 -n 1 --no-probe $out > /dev/null 2> "$SCRATCH/e0"
	rc=$?
	[ $rc -eq 2 ] && grep -q "can be written by everyone and is not sticky" "$SCRATCH/e0" ||
		fail "$out in a 0777 directory: exit $rc: $(cat "$SCRATCH/e0")"
done
[ -z "$(ls -A "$SCRATCH/open")" ] || fail "something was written in the 0777 directory: $(ls -A "$SCRATCH/open")"
printf 'secret\n' > "$SCRATCH/victim"
chmod 600 "$SCRATCH/victim"
before=$(sha256sum < "$SCRATCH/victim")
nobody ln -s "$SCRATCH/victim" "$D/rec" || fail "nobody cannot plant a symlink"
nobody sh -c "echo mine > '$D/rec2'" || fail "nobody cannot make a file"
nobody ln -s "$SCRATCH/victim" "$D/m.prom.tmp" || fail "nobody cannot plant the old temporary's name"

SUDO_UID=65534 "$BIN" --json -d 0.2 -n 1 --no-probe --record "$D/rec" > /dev/null 2> "$SCRATCH/e1"
rc=$?
[ $rc -eq 2 ] && grep -q "rec: is a symbolic link: not followed" "$SCRATCH/e1" || fail "--record through a symlink: exit $rc: $(cat "$SCRATCH/e1")"
SUDO_UID=65534 "$BIN" --json -d 0.2 -n 1 --no-probe --record "$D/rec2" > /dev/null 2> "$SCRATCH/e2"
rc=$?
[ $rc -eq 2 ] && grep -q "rec2: belongs to uid 65534, not to this user" "$SCRATCH/e2" || fail "--record over nobody's file: exit $rc: $(cat "$SCRATCH/e2")"
[ "$(cat "$D/rec2")" = mine ] || fail "nobody's file was changed"

SUDO_UID=65534 "$BIN" -b -d 0.2 -n 2 --no-probe --prometheus-textfile "$D/m.prom" > /dev/null 2> "$SCRATCH/e3" || fail "Prometheus run: $(cat "$SCRATCH/e3")"
[ -f "$D/m.prom" ] && [ ! -L "$D/m.prom" ] || fail "no Prometheus file"
[ "$(stat -c %a "$D/m.prom")" = 644 ] || fail "Prometheus file mode $(stat -c %a "$D/m.prom")"
[ -L "$D/m.prom.tmp" ] || fail "the planted symlink was replaced"
[ "$(sha256sum < "$SCRATCH/victim")" = "$before" ] || fail "the victim changed: $(cat -v "$SCRATCH/victim" | head -3)"

attach_loop 16; N=$(basename "$LOOP")
was=$(sched_of "$N"); dacct=$(cat /proc/sys/kernel/task_delayacct)
to=kyber; [ "$was" = kyber ] && to=none
SUDO_UID=65534 "$BIN" --json -d 0.2 -n 1 --no-probe --disk "$N" --set "$N=$to" --enable-delayacct --record "$D/rec" > /dev/null 2> "$SCRATCH/e4"
rc=$?
[ $rc -eq 2 ] || fail "--set with a refused --record: exit $rc"
[ "$(sched_of "$N")" = "$was" ] || fail "--set took effect before the refused --record ended the run: $(sched_of "$N")"
[ "$(cat /proc/sys/kernel/task_delayacct)" = "$dacct" ] || fail "delay accounting changed before the refused --record"
"$BIN" --json -d 0.2 -n 1 --no-probe --record "$SCRATCH/own.rec" > /dev/null 2>&1 || fail "a plain recording failed"
[ "$(stat -c %a "$SCRATCH/own.rec")" = 600 ] || fail "recording mode $(stat -c %a "$SCRATCH/own.rec"), not 600"
note "$(cat "$SCRATCH/e1" | head -n1)"
note "$(cat "$SCRATCH/e2" | head -n1)"
echo "PASS"
