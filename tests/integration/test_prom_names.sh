#!/bin/bash
# The process names of --prometheus-textfile (iosched_process_to_disk_
# bytes_total{comm=...}), with writers on an ext4 file system on a loop
# device this test attaches (copies of dd under the names below: comm is
# the file's name):
#  - 20 small writers (small01..small20) start first and take the 16
#    series a name can have; then one large writer (bigwriter, 48 MiB)
#    starts: the series go to the names that wrote the most lately, so
#    bigwriter gets its own series (first come took them all, and it was
#    "other");
#  - two writers whose names escape to the same label text ("dup" with the
#    byte 0x01, and "dup^A" as four characters) give one series, not two
#    with the same labels (node_exporter drops such a file's series); no
#    series appears twice and `promtool check metrics` passes;
#  - a writer named "other" (the rest's label) is labelled "other (a
#    process)", never counted in the rest's series;
#  - the counters never go down between the scrapes taken meanwhile.
# suite-budget: 40
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd promtool jq losetup mkfs.ext4 dd
setup_scratch

ext4_loop 256
DD=$(command -v dd)
mkdir "$SCRATCH/bin"
for i in $(seq -w 1 20); do cp "$DD" "$SCRATCH/bin/small$i"; done
cp "$DD" "$SCRATCH/bin/bigwriter"
cp "$DD" "$SCRATCH/bin/dup"$'\x01'
cp "$DD" "$SCRATCH/bin/dup^A"
cp "$DD" "$SCRATCH/bin/other"
# writer NAME KIB: one direct write of KIB KiB under NAME, again and again
writer() {
	while :; do "$SCRATCH/bin/$1" if=/dev/zero of="$MNT/$1.f" bs=1k count="$2" oflag=direct conv=notrunc status=none
		sleep 0.2; done
}
for i in $(seq -w 1 20); do writer "small$i" 4 & done
P=$SCRATCH/m.prom
"$BIN" -b -d 0.5 --no-probe --prometheus-textfile "$P" > /dev/null 2> "$SCRATCH/err" &
TOOL=$!
on_exit "kill $TOOL 2>/dev/null"
for _ in $(seq 200); do grep -q '^iosched_probe_wait_seconds_total' "$P" 2>/dev/null && break; sleep 0.1; done
grep -q '^iosched_probe_wait_seconds_total' "$P" 2>/dev/null || skip "no TO-DISK figures (block latency off?): $(cat "$SCRATCH/err")"
# The 16 series are taken (by the small writers, and by whatever else
# writes on this machine meanwhile), and the rest is "other".
named() { grep '^iosched_process_to_disk_bytes_total{comm=' "$P" 2>/dev/null | grep -vc 'comm="other"'; }
small() { grep -c '^iosched_process_to_disk_bytes_total{comm="small' "$P" 2>/dev/null; }
scrapes=0
scrape() { cp "$P" "$SCRATCH/s$scrapes.prom"; scrapes=$((scrapes + 1)); }
for _ in $(seq 100); do [ "$(named)" -ge 16 ] && [ "$(small)" -ge 8 ] && grep -q 'comm="other"' "$P" && break; sleep 0.1; done
[ "$(named)" -ge 16 ] && [ "$(small)" -ge 8 ] && grep -q 'comm="other"' "$P" ||
	fail "the small writers did not fill the 16 series: $(grep process_to_disk "$P")"
scrape
note "before the large writer: $(named) names ($(small) small), $(grep -o 'comm="other"} [0-9]*' "$P")"

"$SCRATCH/bin/bigwriter" if=/dev/zero of="$MNT/big" bs=1M count=48 oflag=direct status=none || fail "the large writer failed"
writer "dup"$'\x01' 64 &
writer "dup^A" 64 &
writer other 64 &
ok=""
for _ in $(seq 40); do
	sleep 0.25; scrape
	grep -q '^iosched_process_to_disk_bytes_total{comm="bigwriter"} [1-9]' "$P" && grep -q 'comm="dup^A"} [1-9]' "$P" &&
		grep -q 'comm="other (a process)"} [1-9]' "$P" && ok=1 && break
done
scrape
[ -n "$ok" ] || fail "bigwriter, dup^A or other has no series of its own: $(grep process_to_disk "$P" | cat -v)"
big=$(awk 'index($0, "iosched_process_to_disk_bytes_total{comm=\"bigwriter\"}") == 1 { print $2 }' "$P")
[ "$big" -ge $((40 << 20)) ] || fail "bigwriter's series counts $big bytes of 48 MiB"
# one series per name and labels, in every scrape; promtool is content
for s in "$SCRATCH"/s*.prom; do
	dups=$(grep -v "^#" "$s" | awk '{ $NF = ""; print }' | sort | uniq -d)
	[ -z "$dups" ] || fail "$(basename "$s"): a series twice: $(echo "$dups" | cat -v)"
	promtool check metrics < "$s" > "$SCRATCH/promtool.out" 2>&1 || fail "promtool: $(cat "$SCRATCH/promtool.out")"
done
# the counters of each scrape at least the last's, where both have them
# (a label may hold blanks: the value is the last field, the series the rest)
for ((k = 1; k < scrapes; k++)); do
	awk '/^iosched_[a-z_0-9]+_total\{/ { v = $NF; $NF = ""; if (FNR == NR) a[$0] = v; else if (($0 in a) && v + 0 < a[$0] + 0) { print; bad = 1 } }
	     END { exit bad }' "$SCRATCH/s$((k - 1)).prom" "$SCRATCH/s$k.prom" > "$SCRATCH/shrank" ||
		fail "a counter went down between scrapes $((k - 1)) and $k: $(cat "$SCRATCH/shrank")"
done
note "bigwriter $big bytes; $(grep -c '^iosched_process_to_disk_bytes_total{comm=' "$P") series of names; $scrapes scrapes, no counter went down; promtool ok"
echo "PASS"
