#!/bin/bash
# The A/B's progress: on a terminal, stderr shows the phase, the variant
# and the time left on one line rewritten in place, cleared before the
# report; with stderr not a terminal, nothing but errors. The report on
# stdout is the same either way.
# suite-budget: 30
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd jq losetup script
setup_scratch

attach_loop 256; N=$(basename "$LOOP")
run='--ab none,kyber --disk '"$N"' --rounds 2 --dwell 1 --warmup 0 --load none --format json'

# stderr on a pseudo-terminal (script gives one); stdout to a file.
# shellcheck disable=SC2086
script -qec "$BIN $run > $SCRATCH/tty.json" /dev/null > "$SCRATCH/tty.out" 2>&1 ||
	fail "A/B on a terminal exited $?: $(cat "$SCRATCH/tty.out")"
out=$(tr '\r' '\n' < "$SCRATCH/tty.out")
for k in 1 2 3 4; do
	grep -qE "^A/B $N: phase $k of 4, (none|kyber), [a-z ]+; about [0-9]+ s left" <<<"$out" ||
		fail "no progress line for phase $k: $(od -c "$SCRATCH/tty.out" | head -20)"
done
# rewritten in place (carriage return, erase to the end of the line), and
# cleared at the end
grep -q $'\r' "$SCRATCH/tty.out" && grep -q $'\e\[K' "$SCRATCH/tty.out" || fail "progress is not rewritten in place"
[ "$(tail -c 4 "$SCRATCH/tty.out" | od -An -c | tr -d ' \n')" = '\r033[K' ] ||
	fail "progress not cleared at the end: $(tail -c 40 "$SCRATCH/tty.out" | od -c)"
jq -e '.partial == false and (.phases | length) == 4' "$SCRATCH/tty.json" > /dev/null || fail "report wrong on a terminal"

# stderr a file: no progress at all
# shellcheck disable=SC2086
"$BIN" $run > "$SCRATCH/file.json" 2> "$SCRATCH/file.err" || fail "A/B exited $?: $(cat "$SCRATCH/file.err")"
[ ! -s "$SCRATCH/file.err" ] || fail "progress written to a file: $(head -c 300 "$SCRATCH/file.err" | od -c | head)"
jq -e '.partial == false and (.phases | length) == 4' "$SCRATCH/file.json" > /dev/null || fail "report wrong off a terminal"
echo "PASS"
