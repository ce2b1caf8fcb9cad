#!/bin/bash
# A disk that is not probed says the true reason and the way out, on the
# screen and in JSON alike: a loop device this test attaches (3 GiB,
# writable: not hidden) is listed but not probed by default, and its
# "why" names --probe NAME and the O key, not "size 0"; --no-probe says
# itself; with --probe naming another disk, the loop says it was not named.
# suite-budget: 10
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd jq losetup
setup_scratch

attach_loop 3072; L=$LOOP
N=$(basename "$L")
why() { jq -r --arg n "$N" '.disks[] | select(.name == $n) | "\(.probe.mode) \(.probe.why) size=\(.size_bytes)"' "$1" | tail -n1; }

"$BIN" --json -d 0.3 -n 2 --procs 0 > "$SCRATCH/a.json" || fail "default run exited $?"
w=$(why "$SCRATCH/a.json")
note "default: $w"
case "$w" in
"off loop disks are probed only when named: --probe $N, --disk $N, or O size=3221225472") ;;
*) fail "default: the loop's reason is not the true one: $w" ;;
esac

"$BIN" --json -d 0.3 -n 1 --procs 0 --no-probe > "$SCRATCH/b.json" || fail "--no-probe run exited $?"
w=$(why "$SCRATCH/b.json")
[[ "$w" == "off --no-probe (O probes it) "* ]] || fail "--no-probe: $w"

other=$(tail -n1 "$SCRATCH/a.json" | jq -r --arg n "$N" '[.disks[] | select(.name != $n and .scheduler != null) | .name][0] // empty')
[ -n "$other" ] || fail "no other disk with a scheduler to name with --probe"
"$BIN" --json -d 0.3 -n 1 --procs 0 --probe "$other" > "$SCRATCH/c.json" || fail "--probe $other exited $?"
w=$(why "$SCRATCH/c.json")
[[ "$w" == "off not named with --probe (--probe $N, or O) "* ]] || fail "--probe $other: $w"
echo "PASS"
