#!/bin/bash
# Root safety, second round: each case as a local attacker (nobody, by
# setpriv) would try it, each failing on the tool before these fixes.
#  - a symlink in a directory component of --record or
#    --prometheus-textfile (recdir -> a root-only directory) is not
#    followed: the victim is unchanged, exit 2, nothing changed;
#  - a Prometheus path that is a directory is refused before --set;
#  - an existing recording of root's left 0644 becomes 0600;
#  - a file size limit (ulimit -f) ends the run through the clean-up:
#    --restore puts the scheduler back, the exit is 1 (not SIGXFSZ);
#  - a replayed disk name, user or missing-figures text with a terminal
#    escape reaches -b text escaped;
#  - a configuration value with one is escaped on stderr; a configuration
#    file of root's that others may write gives no option root keeps to
#    files it owns;
#  - a process name with a bidirectional control is escaped in -b text;
#  - a planted .iosched-top-UID (another user's 0700 directory, a symlink,
#    a file) does not switch that user's probe off: a private directory of
#    the run's own, said so;
#  - the built-in load in a directory the owner of the filesystem's root
#    could change under it (rename its scratch directory and put a link
#    to a root-only directory in its place): refused before the A/B
#    starts, with the reason; nothing written or unlinked there.
# suite-budget: 75 (the planted-directory runs wait up to 20 s each for an idle-priority probe file a busy suite starves)
. "$(dirname "$0")/../lib/common.sh"
private_mounts "$@"
need_root
need_cmd setpriv sha256sum losetup jq mkfs.ext4
setup_scratch
chmod 755 "$SCRATCH"
esc=$(printf '\033')

attach_loop 200 fill; L=$LOOP; N=$(basename "$L") # room for a probe file and its reserve, and the load
grep -qw kyber "/sys/block/$N/queue/scheduler" || skip "kyber is not offered here"
echo none > "/sys/block/$N/queue/scheduler"

# --- a symlink higher up the path ---
mkdir -m 700 "$SCRATCH/rootonly"
printf 'root data\n' > "$SCRATCH/rootonly/rec.jsonl"
cp "$SCRATCH/rootonly/rec.jsonl" "$SCRATCH/rootonly/m.prom"
before=$(cat "$SCRATCH/rootonly/"* | sha256sum)
mkdir -m 755 "$SCRATCH/home"; chown 65534:65534 "$SCRATCH/home"
nobody ln -s "$SCRATCH/rootonly" "$SCRATCH/home/recdir" || fail "nobody cannot plant the link"
for out in "--record $SCRATCH/home/recdir/rec.jsonl" "--prometheus-textfile $SCRATCH/home/recdir/m.prom"; do
	SUDO_UID=65534 "$BIN" --json -d 0.2 -n 1 --no-probe --disk "$N" --set "$N=kyber" $out > /dev/null 2> "$SCRATCH/e"
	rc=$?
	[ $rc -eq 2 ] && grep -q "recdir is a symbolic link: not followed" "$SCRATCH/e" ||
		fail "$out: exit $rc: $(cat "$SCRATCH/e")"
	[ "$(sched_of "$N")" = none ] || fail "$out: --set applied before the output was refused"
done
[ "$(cat "$SCRATCH/rootonly/"* | sha256sum)" = "$before" ] || fail "root's files behind the link changed"
# another user's directory, without sudo's word for it: refused
"$BIN" --json -d 0.2 -n 1 --no-probe --record "$SCRATCH/home/rec.jsonl" > /dev/null 2> "$SCRATCH/e"
[ $? -eq 2 ] && grep -q "the directory $SCRATCH/home belongs to uid 65534" "$SCRATCH/e" ||
	fail "--record in nobody's directory: $(cat "$SCRATCH/e")"

# --- a Prometheus path that is a directory, with a --set ---
mkdir "$SCRATCH/promdir"
"$BIN" -b -d 0.2 -n 2 --no-probe --disk "$N" --set "$N=kyber" --prometheus-textfile "$SCRATCH/promdir" \
	> /dev/null 2> "$SCRATCH/e"
rc=$?
[ $rc -eq 2 ] && grep -q "is a directory; name a file in it" "$SCRATCH/e" || fail "directory as textfile: exit $rc: $(cat "$SCRATCH/e")"
[ "$(sched_of "$N")" = none ] || fail "--set applied before the Prometheus path was refused"

# --- an old recording left 0644 ---
printf 'old\n' > "$SCRATCH/old.rec"; chmod 644 "$SCRATCH/old.rec"
"$BIN" --json -d 0.2 -n 1 --no-probe --record "$SCRATCH/old.rec" > /dev/null 2> "$SCRATCH/e" || fail "record: $(cat "$SCRATCH/e")"
[ "$(stat -c %a "$SCRATCH/old.rec")" = 600 ] || fail "the recording stayed $(stat -c %a "$SCRATCH/old.rec")"

# --- a file size limit: the clean-up, not SIGXFSZ ---
(ulimit -f 8; exec "$BIN" -b -n 100 -d 0.1 --no-probe --disk "$N" --set "$N=kyber" --restore --record "$SCRATCH/big.rec") \
	> /dev/null 2> "$SCRATCH/e"
rc=$?
[ $rc -eq 1 ] || fail "past the size limit: exit $rc (153 is SIGXFSZ): $(cat "$SCRATCH/e")"
grep -q "big.rec" "$SCRATCH/e" || fail "no message names the recording: $(cat "$SCRATCH/e")"
[ "$(sched_of "$N")" = none ] || fail "the scheduler was not put back: $(sched_of "$N")"

# --- a replayed name with a terminal escape, in -b text ---
"$BIN" --json -d 0.2 -n 3 --no-probe --disk "$N" --record "$SCRATCH/r.rec" > /dev/null 2>&1 || fail "recording failed"
sed "s/\"$N\"/\"\\\\u001b]0;TITLE\\\\u0007$N\"/g" "$SCRATCH/r.rec" > "$SCRATCH/evil.rec"
grep -q 'u001b' "$SCRATCH/evil.rec" || fail "could not plant the name"
"$BIN" --replay "$SCRATCH/evil.rec" -b > "$SCRATCH/replay.txt" 2>&1 || fail "replay failed: $(head -3 "$SCRATCH/replay.txt")"
grep -q "$esc" "$SCRATCH/replay.txt" && fail "a raw ESC reached the text: $(grep "$esc" "$SCRATCH/replay.txt" | cat -v | head -2)"
grep -q '\^\[\]0;TIT' "$SCRATCH/replay.txt" || fail "the name is not shown escaped: $(head -5 "$SCRATCH/replay.txt" | cat -v)"
# the process rows' user and the missing-figures text of a recording too
sed -e 's/"missing":"[^"]*"/"missing":"\\u001b]0;PWNED\\u0007"/' -e 's/"user":"root"/"user":"\\u001b[8m"/g' \
	"$SCRATCH/r.rec" > "$SCRATCH/evil2.rec"
"$BIN" --replay "$SCRATCH/evil2.rec" -b > "$SCRATCH/replay2.txt" 2>&1 || fail "replay 2 failed"
grep -q "$esc" "$SCRATCH/replay2.txt" && fail "a raw ESC reached the text: $(grep "$esc" "$SCRATCH/replay2.txt" | cat -v | head -2)"

# --- a configuration value with a terminal escape, on stderr ---
mkdir -p "$SCRATCH/xdg/iosched-top"
printf 'sort \033]0;T\007\n' > "$SCRATCH/xdg/iosched-top/config"
"$BIN" -b -n 1 --no-probe > /dev/null 2> "$SCRATCH/e"
[ $? -eq 2 ] || fail "a bad sort key was taken"
grep -q "$esc" "$SCRATCH/e" && fail "a raw ESC on stderr: $(cat -v "$SCRATCH/e")"
grep -q "'^\[\]0;T^G'" "$SCRATCH/e" || fail "the value is not quoted escaped: $(cat -v "$SCRATCH/e")"
# a configuration file of root's that others may write: its lines could be anyone's
printf 'record %s\n' "$SCRATCH/injected.rec" > "$SCRATCH/xdg/iosched-top/config"
chmod 666 "$SCRATCH/xdg/iosched-top/config"
"$BIN" -b -n 1 --no-probe > /dev/null 2> "$SCRATCH/e"
[ $? -eq 2 ] && grep -q "record is not taken from a file others may write" "$SCRATCH/e" ||
	fail "a 0666 config of root's gave record: $(cat "$SCRATCH/e")"
[ -e "$SCRATCH/injected.rec" ] && fail "the injected recording was made"
rm "$SCRATCH/xdg/iosched-top/config"

# --- a bidirectional control in a process name ---
evil=$(printf 'ev\xe2\x80\xaex')
cp /bin/dd "$SCRATCH/$evil"
"$SCRATCH/$evil" if="$L" of=/dev/null bs=4k iflag=direct 2> /dev/null & # reads: a row of the pane
on_exit "kill $! 2>/dev/null"
"$BIN" -b -n 3 -d 0.3 --no-probe > "$SCRATCH/procs.txt" 2>&1 || fail "-b run failed"
grep -q "ev\\\\u202ex" "$SCRATCH/procs.txt" || fail "the name is not shown escaped: $(grep -a ev "$SCRATCH/procs.txt" | head -3)"
grep -q "$evil" "$SCRATCH/procs.txt" && fail "a raw U+202E reached the text"

# --- a planted probe directory does not switch nobody's probe off ---
mkfs.ext4 -q -F -E nodiscard "$L" || fail "mkfs failed"
mount_scratch "$L" "$SCRATCH/mnt"
chmod 1777 "$SCRATCH/mnt"
cp "$BIN" "$SCRATCH/iosched-top" && chmod 755 "$SCRATCH/iosched-top"
P=$SCRATCH/mnt/.iosched-top-65534
for plant in "mkdir -m 700 $P" "ln -s /etc $P" "touch $P"; do
	sh -c "$plant" || fail "cannot plant: $plant"
	# Until the probe reads its file, at most 20 s: the file is written at
	# an idle I/O priority, which tests beside this one can starve for
	# seconds (a fixed 6 s run was once not enough under the whole suite).
	ok='.disks[0].probe | .mode == "file" and .n > 0 and (.why | test("is not a private directory of this user"))'
	nobody "$SCRATCH/iosched-top" --json -d 0.5 -n 40 --disk "$N" --probe-file-size 16M > "$SCRATCH/u.json" 2> "$SCRATCH/e" &
	run=$!
	for _ in $(seq 100); do
		tail -n1 "$SCRATCH/u.json" 2>/dev/null | jq -e "$ok" > /dev/null 2>&1 && break
		kill -0 "$run" 2>/dev/null || break
		sleep 0.2
	done
	kill -INT "$run" 2>/dev/null
	wait "$run" || fail "$plant: exit $?: $(cat "$SCRATCH/e")"
	tail -n1 "$SCRATCH/u.json" | jq -e "$ok" > /dev/null ||
		fail "$plant: $(tail -n1 "$SCRATCH/u.json" | jq -c .disks[0].probe)"
	ls -d "$P".* > /dev/null 2>&1 && fail "$plant: the run's private directory was left"
	rm -rf "$P"
done

# --- the load's directory owned by another user ---
# The owner of the filesystem's root could rename the load's scratch
# directory and put a link to a root-only directory in its place while an
# A/B runs: the load refuses such a directory outright (as every path root
# writes), before anything changes, and says why; nobody's swapper, ready
# to do that, never finds a scratch directory to swap.
chown 65534:65534 "$SCRATCH/mnt"; chmod 755 "$SCRATCH/mnt"
mkdir -m 700 "$SCRATCH/victim"; touch "$SCRATCH/victim/keep"
vstamp=$(stat -c '%Y %Z' "$SCRATCH/victim")
nobody sh -c 'end=$(($(date +%s) + 20)); while [ "$(date +%s)" -lt $end ]; do
	for d in "$1"/.iosched-top-load.*; do
		[ -d "$d" ] && [ ! -L "$d" ] && mv "$d" "$1/moved.$$" 2>/dev/null && ln -s "$2" "$d" && exit 0
	done; done; exit 1' _ "$SCRATCH/mnt" "$SCRATCH/victim" &
SWAPPER=$!
on_exit "kill $SWAPPER 2>/dev/null"
"$BIN" --ab none,kyber --disk "$N" --rounds 1 --dwell 2 --warmup 0 --load fsync --load-size 64M --fresh-reads 50 \
	--probe-rate max > /dev/null 2> "$SCRATCH/e" && fail "the A/B wrote its load in nobody's directory"
kill "$SWAPPER" 2>/dev/null
wait "$SWAPPER" && fail "a scratch directory of the load's was made in nobody's directory and swapped"
grep -q "cannot write a load in $SCRATCH/mnt: the directory $SCRATCH/mnt belongs to uid 65534" "$SCRATCH/e" ||
	fail "the refusal does not say why: $(head -c 300 "$SCRATCH/e")"
[ -z "$(ls -A "$SCRATCH/mnt" | grep -v -e lost+found -e '^\.iosched-top')" ] || fail "left in nobody's directory: $(ls -A "$SCRATCH/mnt")"
[ "$(stat -c '%Y %Z' "$SCRATCH/victim")" = "$vstamp" ] && [ "$(ls -A "$SCRATCH/victim")" = keep ] ||
	fail "the load wrote through the swapped-in link: $(ls -A "$SCRATCH/victim" | head)"
echo PASS
