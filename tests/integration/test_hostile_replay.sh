#!/bin/bash
# A recording is a file anyone may hand over: what it holds is data.
#  - Every string of a recording's ticks gets hostile bytes added: an OSC
#    that sets the terminal's title, BEL, an ESC sequence that clears the
#    screen, a C1 CSI (U+009B), bidirectional overrides (U+202E, U+2066)
#    and a byte that is not UTF-8; the block-layer part is off, so its
#    "why" is shown. Replayed as batch text, JSON, CSV, CSV of processes
#    and the Prometheus file, no output holds any of them raw (no control
#    byte but the newline, no C1 or bidirectional control, valid UTF-8),
#    every JSON line parses, promtool takes the metrics; in tmux the full
#    screen shows it escaped and the pane's title stays.
#    (tests/unit/out/test_outputs_hostile.c plants every string field of the
#    recording's tables, those a live run leaves out too.)
#  - Every number of the ticks set to null (but the times ts, mono and
#    interval_s, whose null ends a replay by design), with a scheduler
#    event, a switch comparison and what the probe waited behind added:
#    every line of --json parses with jq (null where a figure is missing,
#    never a bare nan), and CSV leaves such a field empty (not "nan").
#  - Process names that a spreadsheet would run as formulas
#    (=HYPERLINK("x"), @SUM(A1), +cmd|calc, -2+3) come out of --csv-procs
#    with a ' first; figures are left as they are, and so is a lone "-"
#    (a figure not read, as PRIO for ioprio -1).
#  - A rate or a wait no counter holds (1e30, -5) in a process row reaches
#    the text and CSV of processes as a figure, never an unchecked cast.
#  - Process names that escape to the same label text ("dup" and the byte
#    0x01 beside the four characters "dup^A"; "q" and the byte 0xff beside
#    "q\xff") make one Prometheus series each, which counts both names'
#    bytes; promtool takes the file.
# suite-budget: 25
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/tmux.sh"
need_cmd jq tmux iconv promtool
setup_scratch

REC=$SCRATCH/x.rec
"$BIN" -b -d 0.3 -n 3 --no-probe --no-config --procs 50 --record "$REC" > /dev/null 2>&1 || fail "cannot record"
[ "$(wc -l < "$REC")" -eq 4 ] || fail "the recording has $(wc -l < "$REC") lines, not a header and 3 ticks"
# ticks: the lines after the header
ticks() { { head -n1 "$REC"; tail -n +2 "$REC" | jq -c "$@"; } }

# --- hostile strings ---
EVIL=$SCRATCH/evil.rec
ticks 'walk(if type == "string" then . + "\u001b]0;PWNED\u0007\u001b[2J\u009b\u202e\u2066@X@" else . end)
	| .blk.on = 0' | sed 's/@X@/\xff/g' > "$EVIL" || fail "jq"
LC_ALL=C grep -qa $'\xff' "$EVIL" || fail "no stray byte planted"
raw() { # raw FILE: the bytes that may not reach an output, where found
	LC_ALL=C grep -naP '[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|\xe2\x80\xae|\xe2\x81\xa6' "$1" | head -3 | cat -v
	iconv -f UTF-8 -t UTF-8 "$1" > /dev/null 2>&1 || echo "not UTF-8"
}
play() { # play NAME ARGS...: the replay's output in $SCRATCH/NAME
	local name=$1; shift
	"$BIN" --replay "$EVIL" "$@" > "$SCRATCH/$name" 2> "$SCRATCH/$name.err" || fail "$name: exit $?: $(cat -v "$SCRATCH/$name.err")"
	local bad; bad=$(raw "$SCRATCH/$name")
	[ -z "$bad" ] || fail "$name: raw bytes: $bad"
}
play text -b --prometheus-textfile "$SCRATCH/m.prom"
play json --json
play csv --csv
play csvp --csv-procs
bad=$(raw "$SCRATCH/m.prom"); [ -z "$bad" ] || fail "Prometheus: raw bytes: $bad"
promtool check metrics < "$SCRATCH/m.prom" > "$SCRATCH/promtool.out" 2>&1 || fail "promtool: $(cat "$SCRATCH/promtool.out")"
grep -qF '^[]0;PWNED^G^[[2J\x9b\u202e\u2066\xff)' <(grep -a 'block latency off: ' "$SCRATCH/text") ||
	fail "the block-layer part's why is not shown escaped: $(grep -a 'block latency' "$SCRATCH/text" | cat -v)"
while read -r line; do jq -e . <<< "$line" > /dev/null 2>&1 || fail "a JSON line does not parse"; done < "$SCRATCH/json"
tail -n1 "$SCRATCH/json" | jq -e '.blk.why | endswith("\u001b]0;PWNED\u0007\u001b[2J\u009b\u202e\u2066\ufffd")' > /dev/null ||
	fail "JSON does not carry the why as it is: $(tail -n1 "$SCRATCH/json" | jq .blk.why)"

# the full screen, in tmux: escaped, and the title stays
tmux_start "printf '\\033]2;before\\007'; $BIN --replay $EVIL --replay-speed 0.2"
wait_for "PWNED" 10 || fail "the replay is not on the screen"
screen | grep -qF '^[]0;PWNED^G' || fail "the screen does not show the names escaped: $(screen | grep PWNED | head -3)"
screen | grep -qP '\x{202e}|\x{2066}' && fail "a bidirectional control reached the screen"
title=$(T display-message -p -t main '#{pane_title}')
[ "$title" = before ] || fail "the pane's title changed to '$title'"
keys q
note "hostile strings: escaped in text, JSON, CSV, CSV of processes, Prometheus and on screen (title '$title')"

# --- null for every number ---
NUL=$SCRATCH/null.rec
ticks '. as $t
	| .disks[0].cmp = {"state": 2, "from": "bfq", "to": "none", "ts": 1, "rate": 1, "bs": 1, "as": 1}
	| .disks[0].probed = 1
	| .disks[0].slow = {"reads": 1, "worst_us": 1, "total": 1, "n": 1, "a0": {"pid": 1, "comm": "a", "kind": "direct",
		"bytes": 1, "share": 1}, "nslowest": 1, "s0": {"ts": 1, "us": 1, "top": {"pid": 1, "comm": "a",
		"kind": "direct", "bytes": 1, "share": 1}}}
	| .events = [{"ts": 1, "mono": 1, "type": "scheduler", "disk": "x", "key": "", "from": "a", "to": "b", "ms": 1,
		"ok": 1, "error": ""}]
	| walk(if type == "number" then null else . end)
	| .ts = $t.ts | .mono = $t.mono | .interval_s = $t.interval_s
	| .disks[0].cmp.state = 2 | .disks[0].slow.n = 1 | .disks[0].slow.nslowest = 1
	| .disks[0].slow.a0.bytes = 1 | .disks[0].slow.s0.top.bytes = 1 | .disks[0].probed = 1
	| .blk.on = 1 | .have_procs = 1 | .have_load = 1 | .disks[0].have_rates = 1' > "$NUL" || fail "jq"
"$BIN" --replay "$NUL" --json > "$SCRATCH/null.json" 2> "$SCRATCH/null.err" || fail "null: exit $?: $(cat "$SCRATCH/null.err")"
[ "$(wc -l < "$SCRATCH/null.json")" -eq 3 ] || fail "null: $(wc -l < "$SCRATCH/null.json") lines of JSON, not 3: $(cat "$SCRATCH/null.err")"
n=0
while read -r line; do
	n=$((n + 1))
	jq -e . <<< "$line" > /dev/null 2>&1 || fail "null: JSON line $n does not parse: $(grep -o '.\{40\}nan.\{20\}' <<< "$line" | head -3)"
done < "$SCRATCH/null.json"
tail -n1 "$SCRATCH/null.json" | jq -e '.disks[0].probe.rate_hz == null and .events[0].ms == null and .loadavg == [null, null, null]
	and .writers.to_disks_MBps == null and .disks[0].switch_compare.ts == null and .disks[0].probe.slow.worst_us == null' > /dev/null ||
	fail "null: a missing figure is not null: $(tail -n1 "$SCRATCH/null.json" | jq -c '{l: .loadavg, e: .events, w: .writers.to_disks_MBps}')"
for f in --csv --csv-procs; do
	"$BIN" --replay "$NUL" $f > "$SCRATCH/null.out" 2>&1 || fail "null $f: exit $?"
	grep -qiw nan "$SCRATCH/null.out" && fail "null $f: prints nan: $(grep -iw nan "$SCRATCH/null.out" | head -2)"
done
note "nulls: $n JSON lines parse"

# --- formulas in CSV ---
F=$SCRATCH/formula.rec
ticks '.procs |= [to_entries[] | .value + (if .key < 4 then {"comm": (["=HYPERLINK(\"x\")", "@SUM(A1)", "+cmd|calc", "-2+3"][.key]),
		"cmdline": null, "rates": [1000, 1000, 1, 1], "exited": 0, "ioprio": -1} else {} end)]' > "$F" || fail "jq"
# (every row: on a busy machine the recorded processes' own rates put the
# four out of the busiest 20 a --csv-procs interval shows by default)
"$BIN" --replay "$F" --csv-procs --procs 100000 > "$SCRATCH/f.csv" 2>&1 || fail "csv-procs: exit $?"
for name in "'=HYPERLINK(\"\"x\"\")" "'@SUM(A1)" "'+cmd|calc" "'-2+3"; do
	grep -qF -- "$name" "$SCRATCH/f.csv" || fail "no $name in the CSV: $(grep -iE 'HYPER|SUM|cmd|2\+3' "$SCRATCH/f.csv" | head -4)"
done
grep -qE '(^|,)"?([=+@]|-[^,])' "$SCRATCH/f.csv" && fail "a cell starts with a formula character: $(grep -E '(^|,)"?([=+@]|-[^,])' "$SCRATCH/f.csv" | head -2)"
# a lone "-" (PRIO not read: ioprio -1) is no formula: it stays as it is
prio=$(head -n1 "$SCRATCH/f.csv" | tr , '\n' | grep -nx prio | cut -d: -f1)
[ -n "$prio" ] || fail "no prio column: $(head -n1 "$SCRATCH/f.csv")"
awk -F, -v c="$prio" 'NR > 1 && $c == "-" { n++ } NR > 1 && $c == "\047-" { bad++ } END { exit !(n >= 4 && !bad) }' "$SCRATCH/f.csv" ||
	fail "a PRIO of - is not a plain -: $(grep -F "'-2+3" "$SCRATCH/f.csv" | head -1)"
# the figures are plain numbers
awk -F, 'NR > 1 && $5 !~ /^[0-9.]*$/ { bad = 1 } END { exit bad }' "$SCRATCH/f.csv" || fail "a figure is not a plain number: $(sed -n 2p "$SCRATCH/f.csv")"
note "formulas: $(grep -cE "'[=@+-]" "$SCRATCH/f.csv") rows with a cell prefixed with '"

# --- figures no counter holds ---
# Rates and a wait of 1e30 or -5 reach the text's processes and its
# "dirtying ... | to disks ... for NAME" line: each is range-checked before
# its cast (the sanitized build stops on an unchecked one).
for v in 1e30 -5; do
	B=$SCRATCH/big.rec
	ticks --argjson v "$v" '.have_procs = 1 | .top_disk = 0 | .top_writer = .procs[0].tid
		| .procs[0] += {"rates": [$v, $v, 1, 1], "to_disk_Bps": $v, "wait": "ok", "avg_wait_us": $v, "exited": 0}' > "$B" ||
		fail "jq"
	for out in -b --csv-procs; do
		"$BIN" --replay "$B" $out > "$SCRATCH/big.out" 2> "$SCRATCH/big.err" ||
			fail "$v $out: exit $?: $(grep -m2 -a . "$SCRATCH/big.err")"
	done
	grep -q "dirtying.*(.* $(tail -n1 "$B" | jq '.procs[0].pid') " <("$BIN" --replay "$B" -b 2>&1) ||
		fail "$v: the top writer is not named in the text"
done
note "figures out of range: 1e30 and -5 as rates and a wait reach text and CSV without a fault"

# --- one Prometheus series per label ---
D=$SCRATCH/dup.rec
ticks '.blk.on = 1 | .have_procs = 1 | .procs |= [to_entries[] | .value + (if .key < 4 then
		{"comm": (["dup\u0001", "dup^A", "q@X@", "q\\xff"][.key]), "to_disk_Bps": 1000, "exited": 0} else {} end)]' |
	sed 's/@X@/\xff/g' > "$D" || fail "jq"
"$BIN" --replay "$D" -b --prometheus-textfile "$SCRATCH/d.prom" > /dev/null 2>&1 || fail "dup: exit $?"
promtool check metrics < "$SCRATCH/d.prom" > "$SCRATCH/promtool.out" 2>&1 || fail "dup: promtool: $(cat "$SCRATCH/promtool.out")"
dups=$(grep -v '^#' "$SCRATCH/d.prom" | awk '{ $NF = ""; print }' | sort | uniq -d)
[ -z "$dups" ] || fail "dup: a series twice: $(echo "$dups" | cat -v)"
# each label counts both names' bytes: 2 x 1000 B/s over the ticks' intervals
want=$(tail -n +2 "$D" | jq -s '[.[] | .interval_s * 2000] | add | floor')
for l in 'dup^A' 'q\\xff'; do
	got=$(grep -F "iosched_process_to_disk_bytes_total{comm=\"$l\"}" "$SCRATCH/d.prom" | awk '{ print $2 }')
	[ -n "$got" ] && [ $((got - want)) -le 1 ] && [ $((want - got)) -le 1 ] ||
		fail "dup: comm=\"$l\" counts '$got' bytes, not $want: $(grep process_to_disk "$SCRATCH/d.prom")"
done
note "one series per label: dup^A and q\\xff each count $want bytes of two names"
echo "PASS"
