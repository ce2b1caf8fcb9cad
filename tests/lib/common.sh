# Shared by the shell tests: skip rules, loop devices that are always
# detached, and numeric checks. Source it; then call need_root etc.
# A test exits 0 (pass), 77 (skip, with a SKIP line saying why) or other (fail).

TOP=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${IOSCHED_BIN:-$TOP/iosched-top}
case $BIN in /*) ;; *) BIN=$TOP/$BIN ;; esac

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
note() { echo "  $*"; }

need_root() { [ "$(id -u)" -eq 0 ] || skip "needs root (loop devices)"; }
need_cmd() { for c in "$@"; do command -v "$c" >/dev/null 2>&1 || skip "needs $c"; done; }

# Scratch space and cleanup. Every test calls setup_scratch first; the
# trap detaches exactly the loop devices this test attached.
LOOPS=""
CLEANUPS=()
cleanup() {
	# Last registered first: an unmount before the detach of its device.
	for ((i = ${#CLEANUPS[@]} - 1; i >= 0; i--)); do eval "${CLEANUPS[i]}" 2>/dev/null; done
	for l in $LOOPS; do
		# Leave the queue as we found it before letting the device go.
		n=$(basename "$l")
		[ -w "/sys/block/$n/queue/scheduler" ] && echo none > "/sys/block/$n/queue/scheduler" 2>/dev/null
		losetup -d "$l" 2>/dev/null
	done
	[ -n "${SCRATCH:-}" ] && rm -rf "$SCRATCH"
}
setup_scratch() {
	SCRATCH=$(mktemp -d /var/tmp/iosched-test.XXXXXX)
	# An empty configuration of the test's own: a user's file (or one a
	# test saved with W) must not change what the tests see.
	export XDG_CONFIG_HOME=$SCRATCH/xdg HOME=$SCRATCH/home
	unset SUDO_USER SUDO_UID SUDO_GID NO_COLOR
	trap cleanup EXIT
	trap 'exit 130' INT TERM HUP
}
on_exit() { CLEANUPS+=("$1"); }

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
	for _ in $(seq 50); do mountpoint -q "$SCRATCH/fuse" && break; sleep 0.1; done
	mountpoint -q "$SCRATCH/fuse" || fail "slowfs did not mount"
	SLOW=$(losetup -f --show "$SCRATCH/fuse/disk.img") || fail "losetup on slowfs failed"
	LOOPS="$LOOPS $SLOW"
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

# The active scheduler of a disk.
sched_of() { grep -o '\[[^]]*\]' "/sys/block/$1/queue/scheduler" | tr -d '[]'; }
