#!/bin/bash
# alongside.sh CMD...: run CMD while the machine is busy the way a user's
# machine may be when they run the suite: another iosched-top (batch mode,
# its default probe on every disk, the suite's loop devices included) and a
# fio writer on a loop device of its own (1 MiB direct writes at queue
# depth 8, ALONGSIDE_RATE, default 200m per second; 0 = unlimited). Both
# are stopped, and the loop device detached, when CMD ends, whatever
# happens. CMD's exit status is passed on.
#   tests/alongside.sh make check
#   tests/alongside.sh tests/timing-margins.sh
set -u
[ $# -gt 0 ] || { echo "usage: $0 CMD..." >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "$0: needs root (a loop device)" >&2; exit 2; }
for c in fio losetup; do command -v $c >/dev/null || { echo "$0: needs $c" >&2; exit 2; }; done
TOP=$(cd "$(dirname "$0")/.." && pwd)
[ -x "$TOP/iosched-top" ] || make -C "$TOP" --no-print-directory all >/dev/null || exit 2
RATE=${ALONGSIDE_RATE:-200m}

DIR=$(mktemp -d /var/tmp/iosched-alongside.XXXXXX) || exit 2
LOOP="" PIDS=() CMD=""
stop() {
	trap '' INT TERM HUP
	[ -n "$CMD" ] && kill "$CMD" 2>/dev/null && wait "$CMD" 2>/dev/null
	[ ${#PIDS[@]} -gt 0 ] && kill "${PIDS[@]}" 2>/dev/null
	wait 2>/dev/null
	[ -n "$LOOP" ] && losetup -d "$LOOP"
	rm -rf "$DIR"
}
trap stop EXIT
trap 'exit 130' INT TERM HUP

# A copy of the binary: a rebuild by CMD must not change what runs here.
cp "$TOP/iosched-top" "$DIR/iosched-top"
fallocate -l 1G "$DIR/disk.img" || exit 2
LOOP=$(losetup -f --show --direct-io=on "$DIR/disk.img") || exit 2
rate=()
[ "$RATE" = 0 ] || rate=(--rate="$RATE")
fio --name=alongside --filename="$LOOP" --rw=write --bs=1M --direct=1 --ioengine=libaio --iodepth=8 \
	"${rate[@]}" --time_based --runtime=86400 --output=/dev/null &
PIDS+=($!)
"$DIR/iosched-top" -b --json -d 1 --no-config > /dev/null 2>&1 &
PIDS+=($!)
echo "alongside: fio writing $LOOP at ${RATE/#0/unlimited}/s, iosched-top (pid ${PIDS[1]}) probing every disk" >&2
# In the background, so that a signal to this script stops CMD too.
"$@" &
CMD=$!
wait "$CMD"
rc=$?
CMD=""
exit $rc
