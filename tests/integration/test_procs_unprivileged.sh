#!/bin/bash
# Without root: the process figures still come for what is readable (the
# tool's own process), others' rows say they are unreadable (null, never a
# 0), the missing permission is named, and the exit status is 0. The
# batch text says "needs root" for them; as root it says so only if root
# was refused too (a container's init, a hardened kernel), and then not
# "needs root".
# suite-budget: 10
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd jq setpriv
setup_scratch

chmod 755 "$SCRATCH"
cp "$BIN" "$SCRATCH/iosched-top" && chmod 755 "$SCRATCH/iosched-top"
setpriv --reuid=65534 --regid=65534 --clear-groups "$SCRATCH/iosched-top" --json -d 0.5 -n 2 --no-probe --procs 100000 \
	> "$SCRATCH/out.json" 2> "$SCRATCH/err" || fail "exit $?: $(cat "$SCRATCH/err")"
last=$(tail -n1 "$SCRATCH/out.json")
echo "$last" | jq -e '[.procs[] | select(.readable | not)] | length > 0 and all(.read_Bps == null and .write_Bps == null)' \
	>/dev/null || fail "unreadable rows are not null"
echo "$last" | jq -e '[.procs[] | select(.kind == "self" and .comm == "iosched-top")][0] | .readable and .read_calls_per_s > 0' >/dev/null ||
	fail "its own row has no figures: $(echo "$last" | jq -c "[.procs[] | select(.comm == \"iosched-top\")]")"
echo "$last" | jq -e '.writers.missing | test("CAP_NET_ADMIN")' >/dev/null || fail "missing permission not named"
# No exit records without CAP_NET_ADMIN: said, and no ended rows.
echo "$last" | jq -e '.writers.exit_records == false and all(.procs[]; has("exited") | not)' >/dev/null ||
	fail "exit records claimed without the capability: $(echo "$last" | jq -c .writers)"
# Block-layer latency (BPF) is off and says which privilege it needs;
# the rows simply have no "blk" figures.
echo "$last" | jq -e '.blk.on == false and (.blk.why | test("root or cap_bpf,cap_perfmon")) and all(.procs[]; has("blk") | not)' \
	>/dev/null || fail "block latency state wrong: $(echo "$last" | jq -c .blk)"
# The text form counts the unreadable rows and names the permission.
setpriv --reuid=65534 --regid=65534 --clear-groups "$SCRATCH/iosched-top" -b -d 0.5 -n 1 --no-probe --procs 5 \
	> "$SCRATCH/out.txt" 2> "$SCRATCH/err" || fail "exit $?: $(cat "$SCRATCH/err")"
grep -qE "; [0-9]+ without I/O figures \(other users': needs root or CAP_SYS_PTRACE\)" "$SCRATCH/out.txt" ||
	fail "the text form does not say why other rows are empty: $(grep Dirty "$SCRATCH/out.txt")"
# As root: "needs root" would be wrong.
"$BIN" -b -d 0.5 -n 1 --no-probe --procs 100000 > "$SCRATCH/root.txt" 2>&1 || fail "root batch exit $?"
"$BIN" --json -d 0.5 -n 1 --no-probe --procs 100000 > "$SCRATCH/root.json" 2>&1 || fail "root JSON exit $?"
grep -q "needs root" "$SCRATCH/root.txt" && fail "as root, told it needs root: $(grep "needs root" "$SCRATCH/root.txt")"
if jq -e 'any(.procs[]; .readable | not)' "$SCRATCH/root.json" >/dev/null; then
	grep -q "refused to root" "$SCRATCH/root.txt" || fail "root refused, and not said so"
	note "as root: $(grep -o '[0-9]* without I/O figures ([^)]*)' "$SCRATCH/root.txt" | head -n1)"
fi
note "$(echo "$last" | jq -r '"\([.procs[] | select(.readable | not)] | length) unreadable rows; missing: \(.writers.missing); block latency: \(.blk.why)"')"
echo "PASS"
