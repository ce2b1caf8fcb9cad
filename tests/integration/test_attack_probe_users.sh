#!/bin/bash
# An existing --probe-file is read only when it is reached as every path
# root writes is reached (no symbolic link on the way, no directory another
# user controls), opened without blocking, and is a regular file of root's
# or of the user running the tool (sudo's caller). In a sticky directory on
# a loop device's filesystem nobody plants (fs.protected_symlinks off for
# the test, put back after):
#  - a FIFO: refused, said so, never opened (a writer nobody holds
#    waiting on it is not released: opening a FIFO acts, as a device's
#    open does), and the run ends on time (run under timeout);
#  - a regular file of nobody's: refused, said whose it is (nobody may
#    swap it for a FIFO at any time); accepted when nobody is sudo's caller;
#  - d, a link to a root-only directory holding a 100-byte file: refused as
#    a link, and neither the file's size nor its existence is told (a name
#    missing there gets the same message).
# Root's own file in its own directory is read as before.
# suite-budget: 30
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd jq setpriv losetup mkfs.ext4 mount timeout
setup_scratch

attach_loop 160; N=$(basename "$LOOP")
mkfs.ext4 -q -E nodiscard "$LOOP" || fail "mkfs failed"
mount_scratch "$LOOP" "$SCRATCH/mnt"
symlinks_unprotected

chmod 755 "$SCRATCH" "$SCRATCH/mnt"
T=$SCRATCH/mnt/tmp V=$SCRATCH/mnt/victim
mkdir -m 1777 "$T"
mkdir -m 700 "$V"
head -c 100 /dev/urandom > "$V/secret"
nobody mkfifo "$T/fifo" || fail "nobody could not make a FIFO"
nobody ln -s "$V" "$T/d" || fail "nobody could not plant the link"
nobody dd if=/dev/urandom of="$T/theirs" bs=1M count=8 status=none || fail "nobody could not write a file"

# probe FILE [env...]: the probe's state after a short run on FILE.
probe() {
	local f=$1; shift
	env "$@" timeout 30 "$BIN" --json -d 0.5 -n 3 --disk "$N" --probe-file "$f" --probe-file-size 16M \
		> "$SCRATCH/p.json" 2> "$SCRATCH/p.err"
	local rc=$?
	[ $rc -eq 124 ] && fail "--probe-file $f: still running after 30 s (blocked?)"
	[ $rc -eq 0 ] || fail "--probe-file $f: exit $rc: $(head -c 300 "$SCRATCH/p.err")"
	tail -n1 "$SCRATCH/p.json" | jq -c '.disks[0].probe | {mode, why, n}'
}

# nobody's writer waits in open() until a reader opens the FIFO
setpriv --reuid=65534 --regid=65534 --clear-groups sh -c 'exec 3> "$1"; touch "$2"' sh "$T/fifo" "$T/released" &
W=$!; on_exit "kill $W"
s=$(probe "$T/fifo")
echo "$s" | jq -e '.mode == "off" and (.why | test("fifo is not a regular file"))' > /dev/null ||
	fail "the FIFO: $s"
sleep 0.2
[ -e "$T/released" ] && fail "root's probe opened nobody's FIFO (its waiting writer was released)"
kill "$W" 2>/dev/null; wait "$W" 2>/dev/null
note "FIFO: $s"

s=$(probe "$T/theirs")
echo "$s" | jq -e '.mode == "off" and (.why | test("theirs belongs to uid 65534, not to root or to the user running the tool"))' \
	> /dev/null || fail "nobody's file was read by root: $s"
note "nobody's file: $s"
s=$(probe "$T/theirs" SUDO_UID=65534)
echo "$s" | jq -e '.mode == "file" and .n > 0' > /dev/null || fail "nobody's file, nobody being sudo's caller: $s"

s=$(probe "$T/d/secret")
echo "$s" | grep -q "100 bytes" && fail "the root-only file's size was told: $s"
echo "$s" | jq -e '.mode == "off" and (.why | test("/d is a symbolic link: not followed"))' > /dev/null ||
	fail "the link to a root-only directory: $s"
note "link: $s"
m=$(probe "$T/d/missing")
[ "$(echo "$m" | jq -r .why | sed 's/missing$/X/; s|/missing:|/X:|')" = "$(echo "$s" | jq -r .why | sed 's/secret$/X/; s|/secret:|/X:|')" ] ||
	fail "a missing file and an existing one through the link are told apart: $m against $s"
[ "$(ls -A "$V")" = secret ] || fail "something was written in victim: $(ls -A "$V")"

mkdir -m 700 "$SCRATCH/mnt/own"
dd if=/dev/urandom of="$SCRATCH/mnt/own/p" bs=1M count=8 status=none
s=$(probe "$SCRATCH/mnt/own/p")
echo "$s" | jq -e '.mode == "file" and .n > 0' > /dev/null || fail "root's own file: $s"
echo "PASS"
