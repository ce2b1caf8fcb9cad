#!/bin/bash
# Names the system hands over can hold anything (issue 17): two processes
# named with an OSC sequence that sets the terminal's title and with bytes
# that are not UTF-8 do I/O while iosched-top watches. In batch text no
# ESC, BEL or invalid byte reaches the output (they show as ^[, ^G, \xNN);
# every JSON line is valid JSON (UTF-8; U+FFFD for the stray bytes, \u001b
# escaped); in tmux neither batch mode nor the full screen changes the
# pane's title.
# suite-budget: 10
. "$(dirname "$0")/../lib/common.sh"
private_mounts "$@"
. "$(dirname "$0")/../lib/tmux.sh"
need_root
need_cmd jq python3 tmux iconv
setup_scratch

EVIL=$'\e]2;PWNED\a'
BAD=$'bad\xff\xfe'
mkdir "$SCRATCH/bin" "$SCRATCH/w"
# python under those names (links): comm is the link's name. The
# interpreter itself, not a wrapper script (pyenv's shims are scripts).
PY=/usr/bin/python3; [ -x "$PY" ] || PY=$(command -v python3)
ln -s "$PY" "$SCRATCH/bin/$EVIL"
ln -s "$PY" "$SCRATCH/bin/$BAD"
writer='import os, sys, time
for i in range(400):
    with open(sys.argv[1], "ab") as f:
        f.write(b"x" * 65536)
    time.sleep(0.05)'
"$SCRATCH/bin/$EVIL" -c "$writer" "$SCRATCH/w/a" &
E1=$!
"$SCRATCH/bin/$BAD" -c "$writer" "$SCRATCH/w/b" &
E2=$!
on_exit "kill $E1 $E2"
sleep 1

"$BIN" -b -d 0.5 -n 4 --no-probe --procs 200 > "$SCRATCH/out.txt" 2>&1 || fail "batch exited $?"
grep -q "$E1" "$SCRATCH/out.txt" && grep -q "$E2" "$SCRATCH/out.txt" || fail "the writers are not listed: $(cat -v "$SCRATCH/out.txt" | head -20)"
LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' "$SCRATCH/out.txt" && fail "a control character reached the text: $(cat -v "$SCRATCH/out.txt" | grep -n 'PWNED')"
iconv -f UTF-8 -t UTF-8 "$SCRATCH/out.txt" > /dev/null 2>&1 || fail "the text is not valid UTF-8"
grep -qF '^[]2;PWNED^G' "$SCRATCH/out.txt" || fail "the name is not shown escaped: $(grep "$E1" "$SCRATCH/out.txt" | cat -v)"
grep -qF 'bad\xff\xfe' "$SCRATCH/out.txt" || fail "the stray bytes are not shown as \\xNN: $(grep "$E2" "$SCRATCH/out.txt" | cat -v)"

"$BIN" --json -d 0.5 -n 3 --no-probe --procs 100000 > "$SCRATCH/out.json" 2>&1 || fail "JSON exited $?"
iconv -f UTF-8 -t UTF-8 "$SCRATCH/out.json" > /dev/null 2>&1 || fail "the JSON is not valid UTF-8"
while read -r line; do
	echo "$line" | jq -e . > /dev/null 2>&1 || fail "a JSON line does not parse: $(echo "$line" | cut -c1-200)"
done < "$SCRATCH/out.json"
[ "$(tail -n1 "$SCRATCH/out.json" | jq -r --argjson p "$E1" '.procs[] | select(.pid == $p) | .comm')" = "$EVIL" ] ||
	fail "the name does not come back from the JSON as it is"
tail -n1 "$SCRATCH/out.json" | jq -e --argjson p "$E2" '.procs[] | select(.pid == $p) | .comm == "bad\ufffd\ufffd"' >/dev/null ||
	fail "the stray bytes are not U+FFFD: $(tail -n1 "$SCRATCH/out.json" | jq -c --argjson p "$E2" '.procs[] | select(.pid == $p)')"

# The terminal's title: set, then batch mode and the full screen, in tmux.
tmux_start "printf '\\033]2;before\\007'; $BIN -b -d 0.5 -n 3 --no-probe --procs 200; $BIN -d 0.5 --no-probe"
wait_for "Processes \(all disks\)" 10 || fail "the full screen did not start"
keys / P W N E D Enter
wait_for 'PWNED' 5 || fail "the writer is not in the pane"
screen | grep -qF '^[]2;PWNED^G' || fail "the name is not shown escaped on screen: $(screen | grep PWNED)"
title=$(T display-message -p -t main '#{pane_title}')
[ "$title" = before ] || fail "the pane's title changed to '$title'"
keys q
note "batch: $(grep "$E1" "$SCRATCH/out.txt" | head -n1 | sed 's/  */ /g'); title still '$title'"
echo "PASS"
