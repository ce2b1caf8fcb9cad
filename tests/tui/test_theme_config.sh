#!/bin/bash
# Themes and the configuration file in the full screen:
#  - the default theme draws in colour (capture-pane -e shows colour codes),
#    NO_COLOR=1 and --no-color draw none (bold and reverse only);
#  - a broken theme file is named with its line and the default is used;
#  - on an 8-colour terminal (TERM=screen) the colours are the basic ones;
#  - T cycles themes; W saves theme, delay, sort and pace to the
#    configuration file (mode 0600, nothing saved without W), and the next
#    start uses them; a bad line in the file stops the start with
#    FILE:LINE and exit 2; --no-config skips the file.
# suite-budget: 10
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/tmux.sh"
need_root
need_cmd tmux
setup_scratch

ESC=$(printf '\033')
colour_codes() { T capture-pane -e -p -t main | grep -cE "$ESC\[([0-9;]*;)?(3[0-7]|4[0-7]|9[0-7]|38;5;[0-9]+|48;5;[0-9]+)(;[0-9;]*)?m"; }
CONF=$XDG_CONFIG_HOME/iosched-top/config

tmux_start "$BIN -d 0.5 --no-probe"
wait_for "^DEVICE" || fail "no table"
[ "$(colour_codes)" -gt 0 ] || fail "the default theme shows no colour"
[ -e "$CONF" ] && fail "a configuration file was written without W"
keys T
wait_for "theme light \(T: next\)" || fail "T did not switch to light"
keys '>'
wait_for "sorted by R-CALLS/s" || fail "> did not sort by R-CALLS/s"
keys W
# The path may be cut at the screen's edge: its start, then the file.
wait_for "saved theme light, delay 0.5, sort r-calls, probe pace 20 to ${CONF:0:20}" || fail "W did not say it saved"
[ -f "$CONF" ] || fail "W did not save $CONF"
keys q
[ "$(wait_exit)" = 0 ] || fail "exit not 0"
[ "$(stat -c %a "$CONF")" = 600 ] || fail "mode $(stat -c %a "$CONF"), not 600"
grep -qx "theme light" "$CONF" && grep -qx "sort r-calls" "$CONF" && grep -qx "delay 0.5" "$CONF" ||
	fail "file: $(cat "$CONF")"

# The next start takes them: sort and delay show, and light's blue header.
tmux_restart "$BIN --no-probe"
wait_for "sorted by R-CALLS/s" || fail "the saved sort was not used"
wait_for "every 0.5s" || fail "the saved delay was not used"
T capture-pane -e -p -t main | grep -q "$ESC\[[0-9;]*44m\|;44m\|$ESC\[44m" || fail "the light theme's blue header is not drawn"
keys q; wait_exit > /dev/null

# A configuration saved before the columns were renamed ("sort r-iops")
# still sorts by read calls.
sed -i 's/^sort r-calls$/sort r-iops/' "$CONF"
tmux_restart "$BIN --no-probe"
wait_for "sorted by R-CALLS/s" || fail "the old name r-iops in the configuration was not taken"
keys q; wait_exit > /dev/null

# NO_COLOR and --no-color: attributes only.
tmux_restart "NO_COLOR=1 $BIN --no-probe"
wait_for "^DEVICE|DEVICE" || fail "no table with NO_COLOR"
sleep 0.5
[ "$(colour_codes)" -eq 0 ] || fail "NO_COLOR=1 still shows colour"
keys q; wait_exit > /dev/null
tmux_restart "$BIN --no-probe --no-color --no-config"
wait_for "DEVICE" || fail "no table with --no-color"
sleep 0.5
[ "$(colour_codes)" -eq 0 ] || fail "--no-color still shows colour"
keys q; wait_exit > /dev/null

# An 8-colour terminal (TERM=screen: 8 colours, 64 pairs): the colorblind
# theme's #rrggbb colours come out as basic ones, and it draws.
tmux_restart "TERM=screen $BIN --no-probe --no-config --theme colorblind"
wait_for "DEVICE" || fail "nothing drawn on TERM=screen"
T capture-pane -e -p -t main | grep -qE "$ESC\[([0-9;]*;)?(3|4)[0-7](;[0-9;]*)?m" || fail "no basic colours on TERM=screen"
T capture-pane -e -p -t main | grep -qE "38;5;|48;5;" && fail "256-colour codes on an 8-colour terminal"
keys q
[ "$(wait_exit)" = 0 ] || fail "exit not 0 on TERM=screen"

# A broken theme: file:line, the default instead, still running.
printf 'title = red default\nchart_p5 = cyan default\n' > "$SCRATCH/broken.theme"
TMUX_W=200 tmux_restart "$BIN --no-probe --no-config --theme $SCRATCH/broken.theme"
wait_for "broken.theme:2: unknown element 'chart_p5'.*using the default theme" || fail "no file:line message"
[ "$(colour_codes)" -gt 0 ] || fail "no colours after falling back to default"
keys q
[ "$(wait_exit)" = 0 ] || fail "exit not 0 with a broken theme"

# A bad configuration line: FILE:LINE and exit 2, nothing started.
printf '# mine\ntheme stream\ndelay = abc\n' > "$CONF"
"$BIN" -b -n 1 > /dev/null 2> "$SCRATCH/err"
[ $? -eq 2 ] || fail "bad config: exit not 2"
grep -q "$CONF:3: --delay: 'abc' is not accepted" "$SCRATCH/err" || fail "bad config message: $(cat "$SCRATCH/err")"
"$BIN" -b -n 1 --no-config > /dev/null || fail "--no-config did not skip the file"
echo "PASS"
