# Shared by bench scripts: a loop device on a fully written backing file,
# always detached (and its queue put back to none) on exit.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
BIN=${IOSCHED_BIN:-$TOP/iosched-top}
[ "$(id -u)" -eq 0 ] || { echo "bench: needs root (loop devices)" >&2; exit 1; }
for c in fio jq losetup "$@"; do
	command -v "$c" >/dev/null || { echo "bench: needs $c (make bench-deps installs it)" >&2; exit 1; }
done
[ -x "$BIN" ] || { echo "bench: build first (make)" >&2; exit 1; }
# BENCH_TMPDIR: where the scratch directory goes (a tmpfs, for a bench
# that must not write to the disk it measures); default /var/tmp.
SCRATCH=$(mktemp -d "${BENCH_TMPDIR:-/var/tmp}/iosched-bench.XXXXXX")
LOOP=""
PIDS=()
bench_cleanup() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	if [ -n "$LOOP" ]; then
		echo none > "/sys/block/$(basename "$LOOP")/queue/scheduler" 2>/dev/null
		losetup -d "$LOOP"
	fi
	rm -rf "$SCRATCH"
}
trap bench_cleanup EXIT
trap 'exit 130' INT TERM HUP

# bench_loop SIZE_MB: a loop device (direct I/O) on random data; sets LOOP, N.
bench_loop() {
	dd if=/dev/urandom of="$SCRATCH/backing.img" bs=1M count="$1" status=none conv=fsync
	LOOP=$(losetup -f --show --direct-io=on "$SCRATCH/backing.img")
	N=$(basename "$LOOP")
	# It keeps its scheduler from its last attachment: start from none.
	echo none > "/sys/block/$N/queue/scheduler"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
