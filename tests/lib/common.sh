# Shared by the shell tests: skip rules, loop devices that are always
# detached, and numeric checks. Source it; then call need_root etc.
# A test exits 0 (pass), 77 (skip, with a SKIP line saying why) or other (fail).

TOP=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${IOSCHED_BIN:-$TOP/iosched-top}
case $BIN in /*) ;; *) BIN=$TOP/$BIN ;; esac

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
note() { echo "  $*"; }

# jq -e must fail when there is nothing to test. jq 1.6 (Debian 12) exits 0
# on empty input, so a check of a tool's last JSON line passed whenever the
# tool had not written one yet. With -e among the options, no output at all
# is exit 4, as later jq versions do.
jq() {
	local a e=0 out rc
	for a in "$@"; do
		case $a in
		--exit-status) e=1 ;;
		--*) ;;
		-*e*) [[ $a =~ ^-[a-zA-Z]+$ ]] && e=1 ;;
		esac
	done
	[ "$e" = 1 ] || { command jq "$@"; return; }
	out=$(command jq "$@")
	rc=$?
	[ -n "$out" ] && printf '%s\n' "$out"
	[ "$rc" -eq 0 ] && [ -z "$out" ] && return 4
	return "$rc"
}

# The process tests run on both ways of reading the tasks: the kernel's
# task walk (BPF, the default as root, from the third refresh on) and
# /proc (PROCS_FROM_PROC=1: with --no-bpf, as the *_proc.sh wrappers run
# them; not a test that needs the BPF part's block figures). PROCS_ARGS goes on the tool's command line; tasks_from_is FILE
# checks that FILE's last line read them the way asked for.
PROCS_ARGS=${PROCS_FROM_PROC:+--no-bpf}
tasks_from_is() {
	local want=bpf
	[ -n "${PROCS_FROM_PROC:-}" ] && want=proc
	tail -n1 "$1" | jq -e --arg w "$want" '.writers.tasks_from == $w' > /dev/null ||
		fail "the tasks were read from $(tail -n1 "$1" | jq -r .writers.tasks_from), not $want: $(tail -n1 "$1" | jq -r .writers.task_walk_why)"
}

need_root() { [ "$(id -u)" -eq 0 ] || skip "needs root (loop devices)"; }
need_cmd() { for c in "$@"; do command -v "$c" >/dev/null 2>&1 || skip "needs $c"; done; }

# Scratch space and cleanup. Every test calls setup_scratch first; the
# trap, which runs on failure and on INT/TERM/HUP too, undoes everything
# the test made, in this order:
#  1. every process the test started, however deep (a tool's reader child,
#     a tmux server, a FUSE server), killed through the test's own cgroup
#     (see test_cgroup below), so no file of a mount is held open;
#  2. what the test registered with on_exit, last first (an unmount before
#     the detach of its device);
#  3. the loop devices it attached, back on none, then detached;
#  4. the scratch directory (its tmux sockets with it).
# A test that changes kernel.task_delayacct puts it back itself, and only
# while a change of its own is in place: a blanket "as it was at the start"
# would undo another program's change made meanwhile (seen here).
# IOSCHED_TEST_TMP (set by tests/run-all.sh) is where scratch directories
# go; the suite checks after each test that nothing of it is left there.
LOOPS=""
CLEANUPS=()
. "$TOP/tests/lib/delayacct.sh" # DA_FILE, da_as_before
TEST_CG=""
cleanup() {
	trap '' INT TERM HUP # a second signal must not cut the cleanup short
	kill_test_processes
	for ((i = ${#CLEANUPS[@]} - 1; i >= 0; i--)); do eval "${CLEANUPS[i]}" 2>/dev/null; done
	for l in $LOOPS; do
		# Leave the queue as we found it before letting the device go.
		n=$(basename "$l")
		[ -w "/sys/block/$n/queue/scheduler" ] && echo none > "/sys/block/$n/queue/scheduler" 2>/dev/null
		losetup -d "$l" 2>/dev/null
	done
	[ -n "${SCRATCH:-}" ] && rm -rf "$SCRATCH"
	if [ -n "$TEST_CG" ]; then
		# Out of it (a cgroup with a process in it cannot go), then away.
		echo $$ > "$(dirname "$TEST_CG")/cgroup.procs" 2>/dev/null
		rmdir "$TEST_CG/run" "$TEST_CG/cleanup" "$TEST_CG" 2>/dev/null
	fi
}

# The cgroup v2 hierarchy, if one is mounted and writable here, else "".
cgroup2_root() { awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts; }

# test_cgroup: put this test (and so everything it starts) in a cgroup of
# its own, named after its pid, so the cleanup can find and kill every
# process it started even when they left its process tree (daemons,
# children of a killed tool). Without cgroup v2 the cleanup falls back to
# the test's process tree.
test_cgroup() {
	local root parent
	root=$(cgroup2_root)
	[ -n "$root" ] && [ -w "$root" ] || return 0
	parent=$root$(sed -n 's/^0:://p' /proc/self/cgroup)
	TEST_CG=${parent%/}/iosched-test.$$
	if mkdir -p "$TEST_CG/run" "$TEST_CG/cleanup" 2>/dev/null && echo $$ > "$TEST_CG/run/cgroup.procs" 2>/dev/null; then
		return 0
	fi
	rmdir "$TEST_CG/run" "$TEST_CG/cleanup" "$TEST_CG" 2>/dev/null
	TEST_CG=""
}

# descendants PID: every process below PID, deepest last.
descendants() {
	local c
	for c in $(ps -o pid= --ppid "$1" 2>/dev/null); do echo "$c"; descendants "$c"; done
}

# Kill everything the test started and wait (up to 10 s: a process in the
# kernel on a FUSE file dies when its server does) until it is gone.
kill_test_processes() {
	local procs=() p
	if [ -n "$TEST_CG" ]; then
		echo $$ > "$TEST_CG/cleanup/cgroup.procs" 2>/dev/null
		echo 1 > "$TEST_CG/run/cgroup.kill" 2>/dev/null
		# (cgroup files have no size: test the contents, not -s)
		for _ in $(seq 100); do grep -q . "$TEST_CG/run/cgroup.procs" || return 0; sleep 0.1; done
		echo "  cleanup: still running after SIGKILL: $(xargs < "$TEST_CG/run/cgroup.procs")" >&2
		return 0
	fi
	mapfile -t procs < <(descendants $$)
	[ ${#procs[@]} -gt 0 ] || return 0
	kill -KILL "${procs[@]}" 2>/dev/null
	for _ in $(seq 100); do [ "$(running "${procs[@]}")" = 0 ] && return 0; sleep 0.1; done
}

# private_mounts "$@": for the tests that play an attacker (issue 17). The
# rest of the test runs in a mount namespace of its own (unshare -m, the
# same process: exec), so the mounts it makes go with it, and with an
# empty /tmp (a tmpfs): whatever the attacker plants there, or the tool
# writes there, never reaches the machine's /tmp. Where this checkout or
# the binary lies under /tmp (a clone made there) the tmpfs would hide
# them: then /tmp is left as it is. /var/tmp stays (the suite's scratch
# root is there); a test that plants in /var/tmp binds a scratch
# directory over it in a namespace of its own (test_probe_file). Call it
# before setup_scratch.
private_mounts() {
	[ -n "${IOSCHED_PRIVATE_MOUNTS:-}" ] && return 0
	[ "$(id -u)" -eq 0 ] || return 0 # unprivileged: the tests say SKIP anyway
	command -v unshare >/dev/null || skip "needs unshare (util-linux)"
	local tmpfs=1
	case $TOP/:$BIN in /tmp/*|*:/tmp/*) tmpfs="" ;; esac
	IOSCHED_PRIVATE_MOUNTS=1 exec unshare -m --propagation private sh -c '
		[ -z "$1" ] || mount -t tmpfs -o mode=1777,size=64m iosched-test-tmp /tmp || exit 3
		shift && exec "$@"' _ "$tmpfs" bash "$0" "$@"
}

# bin_in_var_tmp VT: the path to run the binary by inside a mount
# namespace whose /var/tmp is the directory VT, bound over it. A binary
# that lies under /var/tmp (a checkout made there) would be hidden by the
# bind: it is copied into VT first (VT goes with the scratch directory).
bin_in_var_tmp() {
	case $BIN in
	/var/tmp/*) cp "$BIN" "$1/iosched-top.bin" || fail "cannot copy $BIN into $1"; echo /var/tmp/iosched-top.bin ;;
	*) echo "$BIN" ;;
	esac
}

setup_scratch() {
	SCRATCH=$(mktemp -d "${IOSCHED_TEST_TMP:-/var/tmp}/iosched-test.XXXXXX") || fail "cannot make a scratch directory"
	# An empty configuration of the test's own: a user's file (or one a
	# test saved with W) must not change what the tests see.
	export XDG_CONFIG_HOME=$SCRATCH/xdg HOME=$SCRATCH/home
	unset SUDO_USER SUDO_UID SUDO_GID NO_COLOR
	trap cleanup EXIT
	trap 'exit 130' INT TERM HUP
	[ "$(id -u)" -eq 0 ] && test_cgroup
}
on_exit() { CLEANUPS+=("$1"); }

# unmount_scratch DIR: unmount, waiting up to 5 s while the file system is
# busy (a process that was just killed may still hold a file on it); if it
# stays busy, say who holds it and detach it lazily, so no mount is left.
unmount_scratch() {
	mountpoint -q "$1" || return 0
	for _ in $(seq 50); do umount "$1" 2>/dev/null && return 0; sleep 0.1; done
	echo "  cleanup: $1 busy for 5 s: $(fuser -vm "$1" 2>&1 | tail -n +2 | xargs); unmounted lazily" >&2
	umount -l "$1"
}

# mount_scratch DEV DIR: mount DEV on DIR (made if needed); the cleanup
# unmounts it.
mount_scratch() {
	mkdir -p "$2"
	mount "$1" "$2" || fail "cannot mount $1 on $2"
	on_exit "unmount_scratch $2"
}

# ext4_loop SIZE_MB -> an ext4 filesystem on a loop device of its own,
# mounted on $SCRATCH/mnt: sets L (the device), N (its name) and MNT.
ext4_loop() {
	attach_loop "$1"
	L=$LOOP N=$(basename "$LOOP") MNT=$SCRATCH/mnt
	mkfs.ext4 -q -E nodiscard "$L" || fail "mkfs failed"
	mount_scratch "$L" "$MNT"
}

# nobody_probe_fs FIO_SECONDS: ext4_loop 1024 where nobody, who cannot open
# /dev/$N, has the probe read files instead: too few there (a fresh
# filesystem), so it ends, unless asked to write its file
# (--probe-file-size): then in D (nobody's directory of the tool's there),
# written by as_nobody ARGS (a copy of the tool nobody may run, run as
# nobody); beside a fio writer at 20 MB/s for FIO_SECONDS ($FIO, stopped
# at exit), already writing.
nobody_probe_fs() {
	ext4_loop 1024
	chmod 1777 "$MNT"; chmod 755 "$SCRATCH"
	cp "$BIN" "$SCRATCH/iosched-top" && chmod 755 "$SCRATCH/iosched-top"
	D=$MNT/.iosched-top-65534
	fio --name=w --filename="$MNT/w" --size=64M --rw=write --bs=1M --direct=1 --rate=20m --time_based \
		--runtime="$1" --output=/dev/null &
	FIO=$!
	on_exit "kill $FIO 2>/dev/null"
	sleep 1.5
}
# no_dev_nodes CMD...: CMD (as root) in a mount namespace whose /dev has
# only null, zero, full, random, urandom: no disk's node can be opened
# (ENOENT), so the probe reads the disk's files, as in a container or
# where the node is refused. Works on any kernel and cgroup layout, unlike
# a v1 devices cgroup; the filesystems mounted before are all there.
no_dev_nodes() {
	unshare -m --propagation private sh -c '
		mount -t tmpfs -o mode=755,size=1m iosched-test-dev /dev || exit 3
		mknod -m 666 /dev/null c 1 3 && mknod -m 666 /dev/zero c 1 5 && mknod -m 666 /dev/full c 1 7 &&
			mknod -m 666 /dev/random c 1 8 && mknod -m 666 /dev/urandom c 1 9 || exit 3
		exec "$@"' _ "$@"
}
# nobody CMD...: CMD run as nobody (uid and gid 65534, no groups), as a
# local attacker; as_nobody ARGS: the tool's copy run so.
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }

# first_probe_line FILE: the probe object of the first JSON line in FILE
# (a run's --json output, still being written) whose first disk's probe
# has read, waited for up to 10 s; empty when none came.
first_probe_line() {
	local i
	for i in $(seq 40); do
		[ "$(jq -s '[.[].disks[] | select(.probe.n > 0)] | length' "$1" 2>/dev/null || echo 0)" -gt 0 ] && break
		sleep 0.25
	done
	jq -c 'select(.disks[0].probe.n > 0) | .disks[0].probe' "$1" | head -n 1
}

# files_probe_start: root's probe of $N in files mode (no_dev_nodes),
# half-second intervals at 200 reads/s (60 at most), its JSON in
# $SCRATCH/out.json; the run is $RUN, and its first line that read must say
# files mode with 2 files (FIRST: that probe object).
files_probe_start() {
	no_dev_nodes "$BIN" --json -d .5 -n 60 --disk "$N" --probe-rate 200 --no-bpf --procs 0 > "$SCRATCH/out.json" \
		2> "$SCRATCH/err" &
	RUN=$!
	on_exit "kill $RUN 2>/dev/null"
	FIRST=$(first_probe_line "$SCRATCH/out.json")
	[ -n "$FIRST" ] || fail "the probe never read: $(tail -c 600 "$SCRATCH/err")"
	note "first: $(echo "$FIRST" | jq -c '{mode, files, span_bytes}')"
	echo "$FIRST" | jq -e '.mode == "files" and .files == 2' > /dev/null || fail "not both files in files mode: $FIRST"
}

# files_probe_end COND: waits (20 s at most) for a line of the run of
# files_probe_start whose probe object meets the jq condition COND, then
# ends the run with SIGINT; the run must end well, and its last line still
# read in files mode (LAST: that probe object). A run on a loaded machine
# takes what time it needs; on failure the lines' files and spans are
# shown, so the report says what the probe did.
files_probe_end() {
	local i rc t0=$SECONDS
	for i in $(seq 80); do
		tail -n 1 "$SCRATCH/out.json" | jq -e ".disks[0].probe | $1" > /dev/null 2>&1 && break
		kill -0 "$RUN" 2>/dev/null || break
		sleep 0.25
	done
	kill -INT "$RUN" 2>/dev/null
	wait "$RUN"
	rc=$?
	[ "$rc" -eq 0 ] || fail "the run exited $rc: $(tail -c 600 "$SCRATCH/err")"
	LAST=$(tail -n 1 "$SCRATCH/out.json" | jq -c '.disks[0].probe')
	note "last: $(echo "$LAST" | jq -c '{mode, n, files, span_bytes}')"
	echo "$LAST" | jq -e '.mode == "files" and .n > 0' > /dev/null || fail "the probe did not read on: $LAST"
	echo "$LAST" | jq -e "$1" > /dev/null ||
		fail "no line met '$1' in $((SECONDS - t0)) s; the lines' files/span_bytes: $(jq -r '.disks[0].probe | "\(.files)/\(.span_bytes)"' "$SCRATCH/out.json" | uniq -c | awk '{ printf "%s%s x%s", (NR > 1 ? ", " : ""), $2, $1 }')"
}
as_nobody() { nobody "$SCRATCH/iosched-top" "$@"; }

# symlinks_unprotected: fs.protected_symlinks off for this test, so that a
# link an attacker plants in a sticky directory is followed, as on kernels
# without that protection; put back at exit. The tests that need it hold
# one lock while they run: two side by side would otherwise put it back
# under each other, and the second would leave it off.
symlinks_unprotected() {
	local ps=/proc/sys/fs/protected_symlinks old
	exec {SYMLINKS_LOCK}> /run/lock/iosched-test-symlinks.lock && flock "$SYMLINKS_LOCK" ||
		fail "cannot take /run/lock/iosched-test-symlinks.lock"
	old=$(cat "$ps")
	echo 0 > "$ps" || skip "cannot set fs.protected_symlinks"
	on_exit "echo $old > $ps"
}

# cgroup_v2: CG, where the cgroup v2 hierarchy is mounted (from
# /proc/self/mountinfo: /sys/fs/cgroup, or /sys/fs/cgroup/unified on a
# hybrid machine); the test is skipped, saying why, when none is writable.
cgroup_v2() {
	CG=$(awk '{ for (i = 1; i <= NF; i++) if ($i == "-") { if ($(i + 1) == "cgroup2") { print $5; exit } break } }' /proc/self/mountinfo)
	[ -n "$CG" ] && [ -w "$CG/cgroup.procs" ] || skip "no writable cgroup v2 hierarchy"
}

# make_cgroups DIR...: the cgroups DIR... under $CG (parents first) made
# now, and removed at exit, the deepest first: each one's processes
# killed (they left the test's own cgroup, so its cleanup does not reach
# them), what is left moved back to the root, then the directory removed.
# Exit steps run the last added first: call it after a step that must run
# after it (ext4_loop's unmount).
make_cgroups() {
	CGROUPS=("$@")
	on_exit remove_cgroups
	local d
	for d in "$@"; do mkdir "$CG/$d" || fail "cannot make $CG/$d"; done
}
remove_cgroups() {
	local i d p
	for ((i = ${#CGROUPS[@]} - 1; i >= 0; i--)); do
		d=$CG/${CGROUPS[i]}
		[ -d "$d" ] || continue
		if [ -e "$d/cgroup.kill" ]; then
			echo 1 > "$d/cgroup.kill"
		else
			for p in $(cat "$d/cgroup.procs"); do kill -KILL "$p"; done
		fi
		for _ in $(seq 50); do grep -q . "$d/cgroup.procs" || break; sleep 0.1; done
		for p in $(cat "$d/cgroup.procs"); do echo "$p" > "$CG/cgroup.procs"; done
		rmdir "$d" || echo "  cleanup: cannot remove $d" >&2
	done
}

# in_cgroup DIR CMD...: CMD run in the background in the cgroup DIR under
# $CG (joined before it starts, so all of it is counted there).
in_cgroup() {
	local d=$1
	shift
	sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' sh "$CG/$d" "$@" > /dev/null 2>&1 &
}

# cgroup_to_disk JSON PATH [SINCE]: the cgroup PATH's to_disk bytes in the
# --json lines of file JSON, summed over the readings (those at or after
# SINCE, unix seconds, only).
cgroup_to_disk() {
	jq -rs --arg p "$2" --argjson t "${3:-0}" '[.[] | select(.ts >= $t) | .interval_s as $dt | .cgroups[] |
		select(.path == $p) | (.to_disk_Bps // 0) * $dt] | add // 0' "$1"
}

# json_with_blk OUT ARGS...: the tool in the background writing --json
# lines with ARGS into OUT (stderr into $SCRATCH/err; TOOL its pid, killed
# at exit), once its BPF part is on (it loads within the first refreshes);
# the test is skipped, with the reason, where it stays off.
json_with_blk() {
	local out=$1
	shift
	"$BIN" --json "$@" > "$out" 2> "$SCRATCH/err" &
	TOOL=$!
	on_exit "kill $TOOL 2>/dev/null"
	for _ in $(seq 100); do tail -n1 "$out" 2>/dev/null | jq -e '.blk.on' > /dev/null 2>&1 && return 0; sleep 0.1; done
	skip "the BPF part is off: $(tail -n1 "$out" | jq -r '.blk.why // empty')$(head -c 300 "$SCRATCH/err")"
}

# to_disk_sum FILE COMM [PID]: the bytes of TO-DISK over a --json run in
# FILE of the rows named COMM (and of pid PID), its rate times each line's
# interval.
to_disk_sum() {
	jq -s --arg c "$2" --argjson p "${3:-null}" '[.[] | .interval_s as $i | .procs[]
		| select(.comm == $c and ($p == null or .pid == $p)) | (.to_disk_Bps // 0) * $i] | add // 0' "$1"
}

# next_line FILE: wait until FILE has a line more than it has now (the
# tool's next refresh written); a FILE not there yet has none (a tool
# started in the background with > FILE may not have opened it yet: an
# empty count once made the wait endless). Fails after 120 s.
next_line() {
	local lines n=0
	lines=$(lines_in "$1")
	until [ "$(lines_in "$1")" -gt "$lines" ]; do
		sleep 0.02
		n=$((n + 1))
		[ "$n" -lt 6000 ] || fail "no new line in $1 in 120 s: $(tail -c 300 "$1" 2>/dev/null)"
	done
}
lines_in() { { wc -l < "$1"; } 2>/dev/null || echo 0; }

# launch_unseen LAUNCH OUT FN: in the background (LAUNCHER its pid, killed
# at exit), a launcher shell that joins the cgroup LAUNCH (under $CG) and
# stays 2.5 s, so the tool's listings see it there, then, as soon as the
# tool's next line is in OUT, runs FN and waits for what FN started: FN
# starts processes that move themselves into other cgroups and end before
# the next refresh, unseen by any listing, their exit records naming the
# launcher's cgroup as their parent's.
launch_unseen() {
	(
		echo "$BASHPID" > "$CG/$1/cgroup.procs" || exit 1
		sleep 2.5
		next_line "$2"
		"$3"
		wait
	) &
	LAUNCHER=$!
	on_exit "kill $LAUNCHER 2>/dev/null"
}

# throwaway_user PREFIX: a user U (PREFIX and the test's pid, removed at
# exit) whose home H is in the scratch, with an empty ~/.config/iosched-top
# of theirs; uid and gid its ids (what sudo passes in SUDO_UID, SUDO_GID).
throwaway_user() {
	U=$1$$
	H=$SCRATCH/home
	useradd -M -d "$H" -s /usr/sbin/nologin "$U" || skip "cannot add a user"
	on_exit "userdel $U"
	mkdir -p "$H/.config/iosched-top"
	chown -R "$U:" "$H"
	chmod 755 "$SCRATCH"
	uid=$(id -u "$U"); gid=$(id -g "$U")
}

# attach_loop SIZE_MB [fill] -> sets LOOP=/dev/loopN (not printed: a
# command substitution would run it in a subshell and the trap would never
# learn of the device). With "fill" the backing file is written with random
# data (reads of holes would never reach a disk).
attach_loop() {
	f="$SCRATCH/backing.$$.$RANDOM.img"
	if [ "${2:-}" = fill ]; then
		dd if=/dev/urandom of="$f" bs=1M count="$1" status=none conv=fsync || fail "cannot write $f"
	else
		fallocate -l "${1}M" "$f" || fail "cannot allocate $f"
	fi
	l=$(losetup -f --show --direct-io=on "$f") || fail "losetup failed"
	LOOPS="$LOOPS $l"
	LOOP=$l
	# A loop device keeps its queue's scheduler from its last attachment
	# (another run may have left bfq): every test starts from none.
	echo none > "/sys/block/$(basename "$l")/queue/scheduler" || fail "cannot set the scheduler of $l to none"
	loop_node_default "$l"
}

# loop_node_default DEV: the node of a loop device this test attached is
# root's, mode 600, as the kernel makes it: a node outlives its device, and
# one left another user's (seen once: loop0-2 nobody's, from a run not
# found) let nobody open the device, which the attack tests rely on not.
loop_node_default() {
	chown 0:0 "$1" && chmod 600 "$1" || fail "cannot give $1 back to root"
}

# A slow disk: a loop device on a file in a FUSE file system
# (tests/lib/slowfs.py) that sleeps in every request. have_slowfs says
# whether one can be made here; need_slowfs skips the test if not.
have_slowfs() {
	command -v fusermount >/dev/null && [ -c /dev/fuse ] && /usr/bin/python3 -c 'import fusepy' 2>/dev/null
}
need_slowfs() { have_slowfs || skip "needs python3-fusepy, /dev/fuse and fusermount"; }

# slow_loop DELAY_S SIZE_MB [random] -> sets SLOW=/dev/loopN (scheduler
# none) and SLOWFS (the server's pid). The file holds zeros, or random data
# with "random". At exit the server is killed with SIGKILL (libfuse takes
# SIGTERM only after the request it sleeps in), which fails the requests it
# holds, so the device can be detached at once; a test that must wait for
# something stuck on the disk kills it itself first.
slow_loop() {
	local src=/dev/zero
	[ "${3:-}" = random ] && src=/dev/urandom
	mkdir -p "$SCRATCH/back" "$SCRATCH/fuse"
	dd if="$src" of="$SCRATCH/back/disk.img" bs=1M count="$2" status=none || fail "cannot write the slow disk's file"
	"$TOP/tests/lib/slowfs.py" "$SCRATCH/back" "$SCRATCH/fuse" "$1" &
	SLOWFS=$!
	disown "$SLOWFS" # killed at exit on purpose: no job report
	on_exit "fusermount -u -z $SCRATCH/fuse"
	on_exit "kill -9 $SLOWFS"
	for _ in $(seq 300); do mountpoint -q "$SCRATCH/fuse" && break; sleep 0.1; done
	mountpoint -q "$SCRATCH/fuse" || fail "slowfs did not mount"
	SLOW=$(losetup -f --show "$SCRATCH/fuse/disk.img") || fail "losetup on slowfs failed"
	LOOPS="$LOOPS $SLOW"
	loop_node_default "$SLOW"
	echo none > "/sys/block/$(basename "$SLOW")/queue/scheduler" || fail "cannot set the scheduler of $SLOW to none"
}

# running PID...: how many of these processes still run (a zombie has ended).
running() {
	local n=0 p st
	for p in "$@"; do
		st=$(ps -o stat= -p "$p" 2>/dev/null)
		case $st in "" | Z*) ;; *) n=$((n + 1)) ;; esac
	done
	echo "$n"
}

# within A B PCT: |A - B| <= PCT % of B
within() {
	awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b != 0 && d <= b * p / 100) }'
}

# other_sched DISK: the schedulers a test switches DISK to when it needs
# "another one", from what DISK offers (kernels differ: bfq is a module
# many never load, this machine's kernel has none). Sets ALT (bfq where it
# is offered, else kyber, else mq-deadline), ALT_TUNE (one of ALT's own
# settings with a value other than its default, for a variant written
# ALT:ALT_TUNE, and ALT_TUNE_FILE, its name under queue/iosched) and ALT2
# (a second scheduler other than none and ALT, empty if there is none),
# AB_OFFER (the variants the full screen's A offers: the first and last).
# A disk that offers no scheduler but none fails the test: no real kernel
# is built so, and a skip would hide it. What is bfq's own (its fresh-reader
# effect, low_latency, io.bfq.weight) is checked in the guest
# (tests/guest, make check-guest), where bfq is.
other_sched() {
	local offered s
	offered=$(tr -d '[]' < "/sys/block/$1/queue/scheduler") || fail "cannot read the schedulers of $1"
	ALT="" ALT2=""
	for s in bfq kyber mq-deadline; do
		case " $offered " in *" $s "*) ;; *) continue ;; esac
		if [ -z "$ALT" ]; then ALT=$s; elif [ -z "$ALT2" ]; then ALT2=$s; fi
	done
	[ -n "$ALT" ] || fail "$1 offers no scheduler but none ($offered): this test switches to another one"
	# What the full screen's A offers first: the list's first and last.
	set -- $offered
	AB_OFFER="$1,${!#}"
	case $ALT in
	bfq) ALT_TUNE_FILE=low_latency ALT_TUNE=low_latency=0 ;;
	kyber) ALT_TUNE_FILE=read_lat_nsec ALT_TUNE=read_lat_nsec=4000000 ;;
	mq-deadline) ALT_TUNE_FILE=fifo_batch ALT_TUNE=fifo_batch=8 ;;
	esac
}

# sched_list_re DISK S: an ERE of DISK's schedulers as the screen lists
# them with S active ("none mq-deadline \[kyber\]").
sched_list_re() {
	tr -d '[]' < "/sys/block/$1/queue/scheduler" | awk -v s="$2" '{
		for (i = 1; i <= NF; i++) printf "%s%s", (i > 1 ? " " : ""), ($i == s ? "\\[" $i "\\]" : $i) }'
}

# The active scheduler of a disk.
sched_of() { grep -o '\[[^]]*\]' "/sys/block/$1/queue/scheduler" | tr -d '[]'; }

# The settings a switch may change and a run must put back: the scheduler
# and the queue attributes it resets.
queue_settings() {
	local q=/sys/block/$1/queue
	echo "$(sched_of "$1") nr_requests=$(cat $q/nr_requests) read_ahead_kb=$(cat $q/read_ahead_kb) wbt_lat_usec=$(cat $q/wbt_lat_usec)"
}

# random_delay LO_MS HI_MS: sets d to a delay in seconds between them (not
# in a subshell: that would reseed RANDOM, which a test seeds to repeat a
# run's delays).
random_delay() { local ms=$(($1 + RANDOM % ($2 - $1))); printf -v d '%d.%03d' $((ms / 1000)) $((ms % 1000)); }
