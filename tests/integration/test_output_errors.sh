#!/bin/bash
# Output that fails ends the run cleanly (issue 17): stdout on a full disk
# (/dev/full) exits 1 with the reason; a reader that goes (| head) ends
# the run within a refresh with exit 1, through the same clean-up as q
# (--enable-delayacct put back), also with SIGPIPE ignored as systemd
# starts services, or sent by hand (kill -PIPE); a closed stdout is refused, unless a file is written
# (then it is held with /dev/null, never handed to a socket); --help, -V and --print-udev-rule check theirs too. An A/B
# whose report cannot be written (on /dev/full, to a reader gone, past
# ulimit -f) exits 1 with the reason, the disk put back.
# suite-alone: it turns kernel.task_delayacct on (a setting of the whole machine) and checks it is put back
# suite-budget: 20
. "$(dirname "$0")/../lib/common.sh"
private_mounts "$@"
need_root
setup_scratch

"$BIN" --json -d 0.2 -n 3 --no-probe > /dev/full 2> "$SCRATCH/e1"
rc=$?
[ $rc -eq 1 ] && grep -q "cannot write the output: No space left on device" "$SCRATCH/e1" ||
	fail "/dev/full: exit $rc: $(cat "$SCRATCH/e1")"

was=$(cat /proc/sys/kernel/task_delayacct)
on_exit "echo $was > /proc/sys/kernel/task_delayacct"
echo 0 > /proc/sys/kernel/task_delayacct
start=$(date +%s.%N)
"$BIN" --json -d 0.2 -n 200 --no-probe --enable-delayacct 2> "$SCRATCH/e2" | head -n 1 > /dev/null
rc=${PIPESTATUS[0]}
took=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
[ $rc -eq 1 ] && grep -q "the reader is gone" "$SCRATCH/e2" || fail "| head: exit $rc: $(cat "$SCRATCH/e2")"
awk -v t="$took" 'BEGIN { exit !(t < 10) }' || fail "| head: ran $took s after its reader went"
[ "$(cat /proc/sys/kernel/task_delayacct)" = 0 ] || fail "--enable-delayacct not put back when the reader went"

start=$(date +%s.%N)
(trap '' PIPE; exec "$BIN" --json -d 0.2 -n 200 --no-probe 2> "$SCRATCH/e3") | head -c 10 > /dev/null
rc=${PIPESTATUS[0]}
took=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
[ $rc -eq 1 ] || fail "SIGPIPE ignored: exit $rc: $(cat "$SCRATCH/e3")"
awk -v t="$took" 'BEGIN { exit !(t < 10) }' || fail "SIGPIPE ignored: ran $took s after its reader went"

# SIGPIPE sent by hand (kill -PIPE), the output still there: the same
# end, exit 1, as the man page says.
"$BIN" --json -d 0.2 -n 200 --no-probe > "$SCRATCH/o5" 2> "$SCRATCH/e5" &
run=$!
for _ in $(seq 300); do [ -s "$SCRATCH/o5" ] && break; sleep 0.1; done
kill -PIPE $run
wait $run
rc=$?
[ $rc -eq 1 ] && grep -q "SIGPIPE" "$SCRATCH/e5" || fail "kill -PIPE: exit $rc: $(cat "$SCRATCH/e5")"

# stdout closed: what it prints would be lost unseen, so it refuses; with
# a file to write (the Prometheus textfile), it runs and writes that.
"$BIN" -b -d 0.2 -n 2 --no-probe >&- 2> "$SCRATCH/e4"
rc=$?
[ $rc -eq 2 ] && grep -q "stdout is closed: what the run prints would be lost" "$SCRATCH/e4" ||
	fail "stdout closed: exit $rc: $(cat "$SCRATCH/e4")"
"$BIN" -b -d 0.2 -n 2 --no-probe --prometheus-textfile "$SCRATCH/p.prom" >&- 2> "$SCRATCH/e4"
rc=$?
[ $rc -eq 0 ] && [ ! -s "$SCRATCH/e4" ] && grep -q '^iosched_' "$SCRATCH/p.prom" ||
	fail "stdout closed with a textfile: exit $rc: $(cat "$SCRATCH/e4")"

# An A/B report that cannot be written: exit 1 with the reason, and the
# disk back on its scheduler all the same (it goes back before the
# report). The reader that goes closes its end at once, seconds before
# the report is written (the A/B runs two 1 s phases first). The text
# report is over 1 KiB, so ulimit -f 1 cuts it.
attach_loop 64; N=$(basename "$LOOP")
other_sched "$N"
AB=(--ab "none,$ALT" --disk "$N" --rounds 1 --dwell 1 --warmup 0 --load none)
ab_check() { # WHAT RC ERRFILE REASON
	[ "$2" -eq 1 ] && grep -q "cannot write the A/B report: $4" "$3" || fail "A/B $1: exit $2: $(cat "$3")"
	[ "$(sched_of "$N")" = none ] || fail "A/B $1: the disk was left on $(sched_of "$N")"
	note "A/B $1: $(cat "$3")"
}
"$BIN" "${AB[@]}" > /dev/full 2> "$SCRATCH/a1"
ab_check "to /dev/full" $? "$SCRATCH/a1" "No space left on device"
"$BIN" "${AB[@]}" 2> "$SCRATCH/a2" | true
ab_check "to a reader that went" "${PIPESTATUS[0]}" "$SCRATCH/a2" "Broken pipe (the reader is gone)"
(ulimit -f 1; exec "$BIN" "${AB[@]}" > "$SCRATCH/a3.txt" 2> "$SCRATCH/a3")
ab_check "past ulimit -f 1" $? "$SCRATCH/a3" "File too large"
[ "$(stat -c %s "$SCRATCH/a3.txt")" -eq 1024 ] || fail "A/B past ulimit -f 1: the report is $(stat -c %s "$SCRATCH/a3.txt") bytes, not cut at 1024"

# The help, the version and the udev rules (redirected into rules.d on a
# full disk, say) are output too.
for what in "--help:the help" "-V:the version" "--print-udev-rule:the udev rules"; do
	"$BIN" --no-config "${what%%:*}" > /dev/full 2> "$SCRATCH/o1"
	rc=$?
	[ "$rc" -eq 1 ] && grep -q "cannot write ${what#*:}: No space left on device" "$SCRATCH/o1" ||
		fail "${what%%:*} > /dev/full: exit $rc: $(cat "$SCRATCH/o1")"
done
note "$(head -n1 "$SCRATCH/e1"); $(head -n1 "$SCRATCH/e2")"
echo "PASS"
