#!/bin/bash
# --prometheus-textfile and --csv on a loop device this test attaches,
# switched to kyber at start (--set):
#  - the text file passes `promtool check metrics` (Prometheus's own
#    checker), carries the scheduler sysfs shows, counts the switch, has
#    probe quantiles, and no temporary file is left beside it;
#  - --csv prints a header row and one row per disk per interval.
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd promtool losetup
setup_scratch

attach_loop 64 fill; L=$LOOP
N=$(basename "$L")
P=$SCRATCH/iosched.prom
"$BIN" --csv -d 0.5 -n 4 --disk "$N" --probe "$N" --set "$N=kyber" --prometheus-textfile "$P" > "$SCRATCH/out.csv" \
	2> "$SCRATCH/err" || fail "exit $?: $(cat "$SCRATCH/err")"
[ -s "$P" ] || fail "no metrics file"
[ -e "$P.tmp" ] && fail "temporary file left behind"
promtool check metrics < "$P" > "$SCRATCH/promtool.out" 2>&1 || fail "promtool: $(cat "$SCRATCH/promtool.out")"
active=$(sched_of "$N")
grep -qx "iosched_scheduler{disk=\"$N\",scheduler=\"$active\"} 1" "$P" || fail "active scheduler $active not 1 in the file"
[ "$(grep -c "^iosched_scheduler{disk=\"$N\",.*} 1$" "$P")" -eq 1 ] || fail "more than one active scheduler for $N"
grep -qx "iosched_scheduler_switches_total{disk=\"$N\"} 1" "$P" || fail "switch not counted: $(grep switches_total "$P")"
grep -q "^iosched_probe_latency_seconds{disk=\"$N\",quantile=\"0.5\"} [0-9.e-]*$" "$P" || fail "no probe p50 for $N"
note "promtool: ok; $(grep -c '^iosched_' "$P") samples; scheduler $active"

[ "$(head -n1 "$SCRATCH/out.csv")" = "ts,disk,kind,scheduler,r_s,w_s,rkB_s,wkB_s,r_await_ms,w_await_ms,aqu_sz,util_pct,probe_n_10s,probe_p50_us_10s,probe_p99_us_10s,switches" ] ||
	fail "CSV header: $(head -n1 "$SCRATCH/out.csv")"
[ "$(wc -l < "$SCRATCH/out.csv")" -eq 5 ] || fail "CSV: $(wc -l < "$SCRATCH/out.csv") lines, not 1 + 4"
awk -F, -v n="$N" 'NR > 1 && ($2 != n || NF != 16) { bad = 1 } END { exit bad }' "$SCRATCH/out.csv" || fail "CSV rows malformed"
[ "$(awk -F, 'NR > 1 { s += $16 } END { print s }' "$SCRATCH/out.csv")" -eq 1 ] || fail "CSV does not show the one switch"

# Bad input: a directory that does not exist, --csv with --json.
"$BIN" -b -n 1 --prometheus-textfile /nonexistent/dir/x.prom > /dev/null 2> "$SCRATCH/e1"
[ $? -eq 2 ] && grep -q "cannot write in /nonexistent/dir" "$SCRATCH/e1" || fail "bad directory: $(cat "$SCRATCH/e1")"
"$BIN" --csv --json -n 1 > /dev/null 2> "$SCRATCH/e2"
[ $? -eq 2 ] && grep -q "conflict" "$SCRATCH/e2" || fail "--csv --json: $(cat "$SCRATCH/e2")"
echo "PASS"
