#!/bin/bash
# Files that are not what they claim (issue 17): --replay and --config of
# a FIFO, a directory or /dev/zero are refused at once ("not a regular
# file", exit 2) instead of blocking or growing without end; a config
# with a NUL byte is refused, not cut short; a 65 MiB line is refused
# before it is held; times far out of range (1e300, -9.2e18) end the
# replay at that line with exit 1, no overflow (the sanitizer build runs
# this too).
# suite-budget: 10
. "$(dirname "$0")/../lib/common.sh"
private_mounts "$@"
setup_scratch

mkfifo "$SCRATCH/fifo"; mkdir "$SCRATCH/dir"
printf 'theme light\0\nsort pid\n' > "$SCRATCH/nul.conf"
expect() { # expect STATUS PATTERN CMD...: the exit status and the message
	local want=$1 pat=$2; shift 2
	timeout 20 "$@" > "$SCRATCH/out" 2> "$SCRATCH/err"
	local rc=$?
	[ $rc -eq "$want" ] && grep -q -- "$pat" "$SCRATCH/err" || fail "$*: exit $rc, not $want: $(head -c 300 "$SCRATCH/err")"
}
expect 2 "fifo: not a regular file" "$BIN" --replay "$SCRATCH/fifo" --json
expect 2 "dir: not a regular file" "$BIN" --replay "$SCRATCH/dir" --json
expect 2 "/dev/zero: not a regular file" "$BIN" --replay /dev/zero --json
expect 2 "fifo: not a regular file" "$BIN" --config "$SCRATCH/fifo" --json -n 1 --no-probe
expect 2 "nul.conf: holds a NUL byte" "$BIN" --config "$SCRATCH/nul.conf" --json -n 1 --no-probe

"$BIN" --json -d 0.2 -n 3 --no-probe --no-config --record "$SCRATCH/r.rec" > /dev/null 2>&1 || fail "cannot record"
for v in -9.2e18 1e300; do
	sed "3s/\"mono\":[0-9.e+]*/\"mono\":$v/" "$SCRATCH/r.rec" > "$SCRATCH/bad.rec"
	expect 1 "bad.rec:3: a time out of range" "$BIN" --replay "$SCRATCH/bad.rec" --json
	[ "$(wc -l < "$SCRATCH/out")" -eq 1 ] || fail "mono $v: $(wc -l < "$SCRATCH/out") ticks played, not the 1 before it"
done
{ head -n 2 "$SCRATCH/r.rec"; head -c $((65 << 20)) /dev/zero | tr '\0' ' '; } > "$SCRATCH/long.rec"
expect 1 "long.rec:3: a line over 64 MiB" "$BIN" --replay "$SCRATCH/long.rec" --json
note "$(cat "$SCRATCH/err")"
echo "PASS"
