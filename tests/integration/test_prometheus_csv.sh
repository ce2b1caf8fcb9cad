#!/bin/bash
# --prometheus-textfile and --csv on a loop device this test attaches,
# switched to kyber at start (--set):
#  - the text file passes `promtool check metrics` (Prometheus's own
#    checker), carries the scheduler sysfs shows (and in iosched_disk_info
#    with rotational), counts the switch, has
#    probe quantiles of the last 10 s and a cumulative probe histogram,
#    and no temporary file is left beside it;
#  - counters are counters: two scrapes 5 s apart of a running instance,
#    every _total, _count and _bucket of the second is at least the
#    first's, and the probe's _count grew by about the reads made between
#    (the histogram's +Inf bucket equals its _count);
#  - --csv prints a header row and one row per disk per interval.
# suite-budget: 15
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
ls "$P".* > /dev/null 2>&1 && fail "temporary file left behind: $(ls "$P".*)"
promtool check metrics < "$P" > "$SCRATCH/promtool.out" 2>&1 || fail "promtool: $(cat "$SCRATCH/promtool.out")"
active=$(sched_of "$N")
grep -qx "iosched_scheduler{disk=\"$N\",scheduler=\"$active\"} 1" "$P" || fail "active scheduler $active not 1 in the file"
[ "$(grep -c "^iosched_scheduler{disk=\"$N\",.*} 1$" "$P")" -eq 1 ] || fail "more than one active scheduler for $N"
# the info metric node_exporter's node_disk_* join on (device), with the
# active scheduler and rotational as sysfs has them
rot=$(cat "/sys/block/$N/queue/rotational")
grep -qx "iosched_disk_info{disk=\"$N\",device=\"$N\",scheduler=\"$active\",rotational=\"$rot\",model=\"[^\"]*\"} 1" "$P" ||
	fail "no info metric of $N on $active (rotational $rot): $(grep disk_info "$P")"
grep -qx "iosched_scheduler_switches_total{disk=\"$N\"} 1" "$P" || fail "switch not counted: $(grep switches_total "$P")"
grep -q "^iosched_probe_p50_10s_seconds{disk=\"$N\"} [0-9.e-]*$" "$P" || fail "no probe p50 for $N"
grep -q "^iosched_probe_latency_seconds_bucket{disk=\"$N\",le=\"+Inf\"} [1-9][0-9]*$" "$P" || fail "no probe histogram for $N"
note "promtool: ok; $(grep -c '^iosched_' "$P") samples; scheduler $active"

# Two scrapes of a running instance, 5 s apart.
P2=$SCRATCH/run.prom
"$BIN" -b -d 0.5 -n 40 --disk "$N" --probe "$N" --probe-rate 200 --prometheus-textfile "$P2" > /dev/null 2>&1 &
TOOL=$!
on_exit "kill $TOOL"
for _ in $(seq 300); do [ -s "$P2" ] && break; sleep 0.1; done
sleep 1
cp "$P2" "$SCRATCH/a.prom"
sleep 5
cp "$P2" "$SCRATCH/b.prom"
kill $TOOL; wait $TOOL 2>/dev/null
promtool check metrics < "$SCRATCH/b.prom" > "$SCRATCH/promtool2.out" 2>&1 || fail "promtool: $(cat "$SCRATCH/promtool2.out")"
# name{labels} and value of every _total, _count and _bucket, tab between
# (a label may hold blanks: comm="pid 6233"), both scrapes side by side
counters() { grep -E '^iosched_[a-z_0-9]+(_total|_count|_bucket)(\{[^}]*\})? ' "$1" | sed -E 's/ ([^ ]+)$/\t\1/' | sort -t $'\t' -k1,1; }
join -t $'\t' <(counters "$SCRATCH/a.prom") <(counters "$SCRATCH/b.prom") > "$SCRATCH/pairs"
[ "$(wc -l < "$SCRATCH/pairs")" -ge 20 ] || fail "too few counters in both scrapes: $(cat "$SCRATCH/pairs")"
awk -F '\t' '$3 < $2 { print; bad = 1 } END { exit bad }' "$SCRATCH/pairs" > "$SCRATCH/shrank" || fail "counters went down: $(cat "$SCRATCH/shrank")"
c1=$(awk -F '\t' -v k="iosched_probe_latency_seconds_count{disk=\"$N\"}" '$1 == k { print $2 }' "$SCRATCH/pairs")
c2=$(awk -F '\t' -v k="iosched_probe_latency_seconds_count{disk=\"$N\"}" '$1 == k { print $3 }' "$SCRATCH/pairs")
inf=$(grep "^iosched_probe_latency_seconds_bucket{disk=\"$N\",le=\"+Inf\"}" "$SCRATCH/b.prom" | awk '{ print $2 }')
[ "$inf" = "$c2" ] || fail "+Inf bucket $inf is not the count $c2"
# 200 reads/s for about 5 s: about 1000 more (paced, so between half and twice)
awk -v a="$c1" -v b="$c2" 'BEGIN { exit !(b - a >= 500 && b - a <= 2000) }' || fail "probe count went $c1 -> $c2 in 5 s at 200/s"
note "counters: $(wc -l < "$SCRATCH/pairs") in both scrapes, none went down; probe reads $c1 -> $c2"

[ "$(head -n1 "$SCRATCH/out.csv")" = "ts,disk,kind,scheduler,r_s,w_s,rkB_s,wkB_s,r_await_ms,w_await_ms,aqu_sz,util_pct,probe_n_10s,probe_p50_us_10s,probe_p99_us_10s,switches" ] ||
	fail "CSV header: $(head -n1 "$SCRATCH/out.csv")"
[ "$(wc -l < "$SCRATCH/out.csv")" -eq 5 ] || fail "CSV: $(wc -l < "$SCRATCH/out.csv") lines, not 1 + 4"
awk -F, -v n="$N" 'NR > 1 && ($2 != n || NF != 16) { bad = 1 } END { exit bad }' "$SCRATCH/out.csv" || fail "CSV rows malformed"
[ "$(awk -F, 'NR > 1 { s += $16 } END { print s }' "$SCRATCH/out.csv")" -eq 1 ] || fail "CSV does not show the one switch"

# Bad input: a directory that does not exist, --csv with --json.
"$BIN" -b -n 1 --prometheus-textfile /nonexistent/dir/x.prom > /dev/null 2> "$SCRATCH/e1"
[ $? -eq 2 ] && grep -q "cannot open the directory /nonexistent: No such file" "$SCRATCH/e1" || fail "bad directory: $(cat "$SCRATCH/e1")"
"$BIN" --csv --json -n 1 > /dev/null 2> "$SCRATCH/e2"
[ $? -eq 2 ] && grep -q "conflict" "$SCRATCH/e2" || fail "--csv --json: $(cat "$SCRATCH/e2")"
echo "PASS"
