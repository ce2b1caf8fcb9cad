#!/bin/bash
# Root's probe in files mode (the disk's node cannot be opened: no_dev_nodes)
# reads files in directories a local user (nobody) owns; what that user
# does there must not steer it:
#  - a directory on the way to a chosen file swapped for a symlink to a
#    directory where a FIFO has the file's name: root never opens the FIFO
#    (its writer, blocked in open, would go on; a device there would act),
#    drops the file and reads on;
#  - a chosen file replaced by a Unix socket, another by a directory: both
#    dropped, the probe reads on (it stopped, "No such device or address");
#  - 4096 hard links to one 300 KiB file: the file is read once, not as
#    1 GiB of files;
#  - another user's file larger than any other: the fresh reader's file is
#    the largest one root will open (root's), not the user's (refused: it
#    stopped --ab), and that user's files give at most an eighth of what
#    the probe may read (128 MiB);
#  - not root, the probe line says its reads may update access times.
# suite-budget: 50
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd setpriv jq losetup mkfs.ext4 unshare python3
setup_scratch
chmod 755 "$SCRATCH"
ext4_loop 1024
U=$MNT/home/u
BIG=$MNT/home/big
mkdir -p "$MNT/usr" "$U/d" "$U/s" "$U/links" "$U/trap" "$BIG"
fill() { dd if=/dev/zero of="$1" bs=1M count="$2" oflag=direct status=none || fail "cannot write $1"; }
fill "$MNT/usr/root-big" 100
fill "$U/d/zero" 48
fill "$U/s/sock" 8
fill "$U/s/dir" 8
fill "$BIG/huge" 250
dd if=/dev/zero of="$U/links/f" bs=1K count=300 status=none
for i in $(seq 4095); do ln "$U/links/f" "$U/links/l$i"; done
mkfifo "$U/trap/zero"
chown -R 65534:65534 "$U"
chown -R 4242:4242 "$BIG" # a user of its own: nobody's files are not capped
sync

no_dev_nodes "$BIN" --json -d .5 -n 20 --disk "$N" --probe-rate max > "$SCRATCH/out.json" 2> "$SCRATCH/err" &
RUN=$!
on_exit "kill $RUN 2>/dev/null"
first=$(first_probe_line "$SCRATCH/out.json")
[ -n "$first" ] || fail "the probe never read: $(tail -c 600 "$SCRATCH/err") $(tail -n 1 "$SCRATCH/out.json" | jq -c '.disks[0].probe | {mode, why}')"
note "first: $(echo "$first" | jq -c '{mode, files, span_bytes, path, why}')"
[ "$(echo "$first" | jq -r .mode)" = files ] || fail "not in files mode: $first"
# Hard links: the file once. Files: root-big, zero, sock, dir, huge, f:
# all of them, or the attacks below would miss.
files=$(echo "$first" | jq .files)
[ "$files" -eq 6 ] || fail "$files files chosen, not 6 (the hard links taken as files of their own, or a file left out)"
# The big user's share: 128 MiB of its 250; nobody's 64.3 MiB all.
span=$(echo "$first" | jq .span_bytes)
[ "$span" -le $(((100 << 20) + (65 << 20) + (128 << 20))) ] || fail "read span $span: user 4242's file gave more than 128 MiB"
# The fresh reader's file: root's, the largest root will open.
[ "$(echo "$first" | jq -r .path)" = "$MNT/usr/root-big" ] || fail "fresh reader's file: $(echo "$first" | jq -r .path)"

# The attacks, as nobody, while root's probe reads.
nobody sh -c "exec 3> '$U/trap/zero'; echo opened > '$U/opened'" &
WRITER=$!
on_exit "kill $WRITER 2>/dev/null"
nobody sh -c "cd '$U' && mv d d.real && ln -s trap d" || fail "cannot swap d"
nobody /usr/bin/python3 -c "
import os, socket
os.unlink('$U/s/sock')
s = socket.socket(socket.AF_UNIX); s.bind('$U/s/sock')
os.unlink('$U/s/dir'); os.mkdir('$U/s/dir')" || fail "cannot replace the files"
wait $RUN
rc=$?
kill $WRITER 2>/dev/null
[ "$rc" -eq 0 ] || fail "the run exited $rc: $(tail -c 600 "$SCRATCH/err")"
[ ! -e "$U/opened" ] || fail "root opened the FIFO a swapped directory led to"
last=$(tail -n 1 "$SCRATCH/out.json" | jq -c '.disks[0].probe')
note "last: $(echo "$last" | jq -c '{mode, n, files, why}')"
echo "$last" | jq -e '.mode == "files" and .n > 0' >/dev/null || fail "the probe did not read on: $last"
echo "$last" | jq -e '.why | test("stopped") | not' >/dev/null || fail "the probe stopped: $last"
# The files the user swapped or replaced are gone from the set (a new
# choice may take d.real/zero under its new name): root-big, huge, f, zero.
[ "$(echo "$last" | jq .files)" -le 4 ] || fail "swapped files still in the set: $last"
grep -q "stopped" "$SCRATCH/err" && fail "stderr: $(cat "$SCRATCH/err")"
echo "$first" | jq -e '.why | test("nothing written$")' >/dev/null || fail "root's line: $(echo "$first" | jq -r .why)"
# the line names the directories below the mount, not ones above it
case "$(echo "$first" | jq -r .why)" in
*" files under $MNT/usr, $MNT/home on $N,"* | *" files under $MNT/home, $MNT/usr on $N,"*) ;;
*) fail "the line does not say which directories of $MNT are read: $(echo "$first" | jq -r .why)" ;;
esac

# Not root: O_NOATIME is refused for others' files, so a read may update
# an access time, and the line says so (it said "nothing written").
cp "$BIN" "$SCRATCH/iosched-top"
as_nobody --json -d .5 -n 6 --disk "$N" --no-bpf --procs 0 > "$SCRATCH/nobody.json" 2> "$SCRATCH/nobody.err"
why=$(jq -r 'select(.disks[0].probe.mode == "files") | .disks[0].probe.why' "$SCRATCH/nobody.json" | tail -n 1)
note "as nobody: $why"
case $why in *"nothing written but access times (not root)"*) ;;
*) fail "as nobody, the probe line does not say it may update access times: '$why' $(tail -c 300 "$SCRATCH/nobody.err")" ;; esac
echo "PASS"
