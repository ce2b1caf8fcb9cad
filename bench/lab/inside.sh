#!/bin/bash
# Runs inside the guest that bench/lab/run boots, as root at boot: makes
# the lab's three disks (bench/lab/disks.sh) and plays the seeds' scenes
# on them, each measured by fio (or a timed cold read) and by the tool's
# own --ab, then says whether both name the same winner:
#   seed003-coldstart  labhdd: a cold read of a tree of small files (the
#                      page cache dropped) under a buffered writer, per
#                      scheduler, bfq with low_latency on and off; the
#                      tool: --ab none,bfq with that read as --startup
#   seed000-qd1        labssd: fio's QD1 4 KiB random reads (direct)
#                      under a buffered writer, kyber against mq-deadline,
#                      median, mean and p99 of fresh runs; the tool: --ab
#                      kyber,mq-deadline
#   seed004-nvme       labnvme: fio's 4 KiB random reads at depth 32,
#                      IOPS and CPU per I/O, none, mq-deadline and bfq;
#                      the tool: --ab none,mq-deadline
#   card-live          labhdd: fio's QD1 4 KiB random reads of a file under
#                      a buffered writer, kyber against none, p99; the
#                      tool: --ab-live kyber,none with that reader as the
#                      user's program, and --ab kyber,none
#   washout            labhdd: how long after a switch a QD1 reader's
#                      latency settles under a buffered writer, per
#                      scheduler switched to (the live A/B's washout)
# Each figure is a line "LAB {json}" (scene, disk, scheduler, figure,
# value, unit, source, run); each scene ends with a line whose "agree" is
# true when the tool's winner is fio's, false when not, null when fio's
# own runs disagree. Ends with GUEST-DONE.
#   /opt/iosched/lab/scenes    the scenes to play (default: all four)
#   /opt/iosched/lab/settings  LAB_ROUNDS, LAB_LIVE_A/B/TIME, WASH_PERIOD/CYCLES
#                              as bench/lab/run found them
set -u
export LC_ALL=C.UTF-8
BIN=/opt/iosched/iosched-top
L=/opt/iosched/lab
. "$L/disks.sh"
[ -f "$L/settings" ] && . "$L/settings"
SCENES=$(cat "$L/scenes" 2>/dev/null || echo "seed003-coldstart seed000-qd1 seed004-nvme card-live")
ROUNDS=${LAB_ROUNDS:-3}
W=/run/iosched-lab
mkdir -p "$W"
WRITER=""

finish() {
	[ -n "$WRITER" ] && kill "$WRITER" 2>/dev/null && wait "$WRITER" 2>/dev/null
	for m in /mnt/labhdd /mnt/labssd /mnt/labnvme; do mountpoint -q "$m" && umount "$m"; done
	lab_disks_remove
	echo GUEST-DONE
}
trap finish EXIT

say() { echo "lab: $*"; }

# emit SCENE DISK SCHED FIGURE VALUE UNIT SOURCE [RUN]: one figure
emit() {
	jq -nc --arg scene "$1" --arg disk "$2" --arg scheduler "$3" --arg figure "$4" --arg value "$5" \
		--arg unit "$6" --arg source "$7" --arg run "${8:-}" \
		'{scene: $scene, disk: $disk, scheduler: $scheduler, figure: $figure,
		  value: ($value | tonumber? // null), unit: $unit, source: $source}
		 + (if $run == "" then {} else {run: ($run | tonumber)} end)' | sed 's/^/LAB /'
}

# verdict SCENE DISK FIGURE LOWER_BETTER A B RUNS_FILE TOOL_WINNER TOOL_TEXT:
# fio's winner of A against B in each run (RUNS_FILE: "sched run value"
# lines); one winner when every run names the same, else none (fio
# disagrees with itself); then the agreement line.
verdict() {
	local scene=$1 disk=$2 fig=$3 lower=$4 a=$5 b=$6 runs=$7 tool=$8 text=$9
	local fio
	fio=$(awk -v a="$a" -v b="$b" -v lower="$lower" '
		$1 == a { va[$2] = $3 } $1 == b { vb[$2] = $3 }
		END { w = ""
			for (r in va) { if (!(r in vb)) continue
				x = (lower ? va[r] < vb[r] : va[r] > vb[r]) ? a : b
				if (w == "") w = x; else if (w != x) { print "-"; exit } }
			print (w == "" ? "-" : w) }' "$runs")
	[ "$fio" = "-" ] && fio=""
	jq -nc --arg scene "$scene" --arg disk "$disk" --arg figure "$fig" --arg fio "$fio" --arg tool "$tool" \
		--arg text "$text" --arg a "$a" --arg b "$b" \
		'{scene: $scene, disk: $disk, compared: [$a, $b], figure: $figure,
		  fio_winner: (if $fio == "" then null else $fio end),
		  tool_winner: (if $tool == "" then null else $tool end), tool_says: $text,
		  agree: (if $fio == "" then null else ($fio == $tool) end)}' | sed 's/^/LAB /'
}

# writer_stop MOUNT: the looping writer and the dd it runs (it holds its
# file open: the space would come back only when it ends), its file gone
writer_stop() {
	kill "$WRITER"; pkill -f "of=$1/writer"; wait "$WRITER" 2>/dev/null; WRITER=""
	rm -f "$1/writer"; sync
}

# set_sched DISK NAME: NAME may be bfq-nolowlat (bfq, low_latency 0)
set_sched() {
	echo "${2%-nolowlat}" > "/sys/block/$1/queue/scheduler" || return 1
	case $2 in
	bfq) echo 1 > "/sys/block/$1/queue/iosched/low_latency" ;;
	bfq-nolowlat) echo 0 > "/sys/block/$1/queue/iosched/low_latency" ;;
	esac
}

# rotate N WORDS...: the words starting at the N-th (round-robin order)
rotate() { local n=$1; shift; local a=("$@") i; for ((i = 0; i < ${#a[@]}; i++)); do echo "${a[(i + n) % ${#a[@]}]}"; done; }

# tool_ab SCENE DISK MOUNT VARIANTS FIGURE [ARGS...]: the tool's --ab; sets
# TOOL_WINNER (the verdict's best, empty when not decided) and TOOL_TEXT
tool_ab() {
	local scene=$1 disk=$2 mnt=$3 variants=$4 fig=$5 t0=$SECONDS
	shift 5
	TOOL_WINNER="" TOOL_TEXT=""
	if ! "$BIN" --ab "$variants" --disk "$disk" --load-dir "$mnt" --load-size 64M --format json "$@" \
		> "$W/ab.json" 2> "$W/ab.err"; then
		TOOL_TEXT="--ab failed: $(tail -c 300 "$W/ab.err")"
		say "$scene: $TOOL_TEXT"
		return
	fi
	TOOL_WINNER=$(jq -r --arg f "$fig" '.verdict[] | select(.figure == $f) | .best // ""' "$W/ab.json")
	TOOL_TEXT=$(jq -r --arg f "$fig" '.verdict[] | select(.figure == $f) | .text' "$W/ab.json")
	local s
	for s in $(jq -r '.summary[].scheduler' "$W/ab.json"); do
		for f in reads_per_s fresh_ms paced_p99_us startup_s; do
			emit "$scene" "$disk" "$s" "$f" "$(jq -r --arg s "$s" --arg f "$f" '.summary[] | select(.scheduler == $s) | .[$f] // ""' "$W/ab.json")" \
				"$(case $f in reads_per_s) echo 1/s ;; fresh_ms) echo ms ;; paced_p99_us) echo us ;; *) echo s ;; esac)" tool
		done
	done
	say "$scene: the tool's --ab $variants in $((SECONDS - t0)) s: $TOOL_TEXT"
}

# --- seed 003: a program's cold start under a buffered writer, labhdd ---
scene_coldstart() {
	local S=seed003-coldstart D=labhdd M=/mnt/labhdd r s t
	mkfs.ext4 -q -F -E nodiscard "/dev/$D" && mkdir -p "$M" && mount "/dev/$D" "$M" || { say "$S: no filesystem"; return; }
	# 600 files of 8 KiB in 30 directories: a program's libraries and data
	for r in $(seq 30); do
		mkdir -p "$M/tree/d$r"
		for t in $(seq 20); do head -c 8192 /dev/urandom > "$M/tree/d$r/f$t"; done
	done
	sync
	COLD="find $M/tree -type f -exec cat {} + > /dev/null"
	cold() { echo 3 > /proc/sys/vm/drop_caches; local t0; t0=$(date +%s.%N); sh -c "$COLD"; awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }'; }
	set_sched "$D" none
	emit "$S" "$D" none coldread_idle_s "$(cold)" s coldread
	( while :; do dd if=/dev/zero of="$M/writer" bs=1M count=256 status=none; done ) &
	WRITER=$!
	sleep 3
	: > "$W/runs"
	for r in $(seq "$ROUNDS"); do
		for s in $(rotate "$r" none mq-deadline kyber bfq bfq-nolowlat); do
			set_sched "$D" "$s" || continue
			sleep 1
			t=$(cold)
			echo "$s $r $t" >> "$W/runs"
			emit "$S" "$D" "$s" coldread_s "$t" s coldread "$r"
		done
	done
	writer_stop "$M"
	set_sched "$D" none
	tool_ab "$S" "$D" "$M" none,bfq cold_start_s --startup "$COLD" --startup-runs 1
	verdict "$S" "$D" coldread_s 1 none bfq "$W/runs" "$TOOL_WINNER" "$TOOL_TEXT"
	umount "$M"
}

# fio_json FILE JOB EXPR: a figure of one job of fio's JSON output
fio_json() { sed -n '/^{/,$p' "$1" | jq -r --arg j "$2" ".jobs[] | select(.jobname == \$j) | $3"; }

# --- seed 000: QD1 random reads under a writer, labssd ---
scene_qd1() {
	local S=seed000-qd1 D=labssd M=/mnt/labssd r s
	: > "$W/runs"
	for r in $(seq "$ROUNDS"); do
		for s in $(rotate "$r" kyber mq-deadline); do
			set_sched "$D" "$s" || continue
			fio --output-format=json --filename="/dev/$D" \
				--name=writer --rw=write --bs=1M --ioengine=psync --direct=0 --offset=384M --size=256M \
				--time_based --runtime=10 \
				--name=reader --rw=randread --bs=4k --iodepth=1 --ioengine=libaio --direct=1 --offset=0 --size=256M \
				--time_based --runtime=8 --startdelay=1 > "$W/fio.json" 2> "$W/fio.err" || { say "$S: fio failed: $(tail -c 300 "$W/fio.err")"; continue; }
			emit "$S" "$D" "$s" median_ms "$(fio_json "$W/fio.json" reader '.read.clat_ns.percentile["50.000000"] / 1e6')" ms fio "$r"
			emit "$S" "$D" "$s" mean_ms "$(fio_json "$W/fio.json" reader '.read.clat_ns.mean / 1e6')" ms fio "$r"
			emit "$S" "$D" "$s" p99_ms "$(fio_json "$W/fio.json" reader '.read.clat_ns.percentile["99.000000"] / 1e6')" ms fio "$r"
			echo "$s $r $(fio_json "$W/fio.json" reader '.read.clat_ns.mean')" >> "$W/runs"
		done
	done
	mkfs.ext4 -q -F -E nodiscard "/dev/$D" && mkdir -p "$M" && mount "/dev/$D" "$M" || { say "$S: no filesystem"; return; }
	tool_ab "$S" "$D" "$M" kyber,mq-deadline reads_per_s
	verdict "$S" "$D" mean_ms 1 kyber mq-deadline "$W/runs" "$TOOL_WINNER" "$TOOL_TEXT"
	umount "$M"
}

# --- seed 004: deep random reads on an NVMe-like disk, labnvme ---
scene_nvme() {
	local S=seed004-nvme D=labnvme M=/mnt/labnvme r s ios
	: > "$W/runs"
	for r in $(seq "$ROUNDS"); do
		for s in $(rotate "$r" none mq-deadline bfq); do
			set_sched "$D" "$s" || continue
			fio --output-format=json --filename="/dev/$D" --name=deep --rw=randread --bs=4k --iodepth=32 \
				--ioengine=libaio --direct=1 --size=512M --time_based --runtime=6 > "$W/fio.json" 2> "$W/fio.err" ||
				{ say "$S: fio failed: $(tail -c 300 "$W/fio.err")"; continue; }
			ios=$(fio_json "$W/fio.json" deep '.read.total_ios')
			emit "$S" "$D" "$s" iops "$(fio_json "$W/fio.json" deep '.read.iops')" 1/s fio "$r"
			emit "$S" "$D" "$s" cpu_us_per_io "$(fio_json "$W/fio.json" deep "(.usr_cpu + .sys_cpu) / 100 * .job_runtime * 1000 / ($ios + 0.000001)")" us fio "$r"
			echo "$s $r $(fio_json "$W/fio.json" deep '.read.iops')" >> "$W/runs"
		done
	done
	set_sched "$D" none
	mkfs.ext4 -q -F -E nodiscard "/dev/$D" && mkdir -p "$M" && mount "/dev/$D" "$M" || { say "$S: no filesystem"; return; }
	tool_ab "$S" "$D" "$M" none,mq-deadline reads_per_s
	verdict "$S" "$D" iops 0 none mq-deadline "$W/runs" "$TOOL_WINNER" "$TOOL_TEXT"
	umount "$M"
}

# --- the card's scene: the user's own reader and writer, switched live ---
# labhdd with ext4: a buffered writer and a QD1 4 KiB direct random reader
# (fio, on a 256 MiB file) stand for the user's load. fio's reader p99
# under each of A and B alone (LAB_LIVE_A, LAB_LIVE_B: kyber and none;
# ROUNDS rounds), then the tool's --ab-live A,B (--max-time LAB_LIVE_TIME,
# 120) with that reader running as the user's program (its reads' p99
# decides), then the tool's --ab A,B with its own load
# (the paced reader's p99).
scene_live() {
	local S=card-live D=labhdd M=/mnt/labhdd r s A=${LAB_LIVE_A:-kyber} B=${LAB_LIVE_B:-none} T=${LAB_LIVE_TIME:-120}
	mkfs.ext4 -q -F -E nodiscard "/dev/$D" && mkdir -p "$M" && mount "/dev/$D" "$M" || { say "$S: no filesystem"; return; }
	dd if=/dev/urandom of="$M/data" bs=1M count=256 status=none conv=fsync
	# a copy's writes reach the disk: each file synced before the next
	# (rewritten without it, a file's dirty pages were dropped unwritten
	# and the disk saw almost none: fio's p99 was 8-10 ms under every
	# scheduler)
	( while :; do dd if=/dev/zero of="$M/writer" bs=1M count=256 conv=fsync status=none; done ) &
	WRITER=$!
	sleep 3
	: > "$W/runs"
	for r in $(seq "$ROUNDS"); do
		for s in $(rotate "$r" "$A" "$B"); do
			set_sched "$D" "$s" || continue
			sleep 1
			fio --output-format=json --filename="$M/data" --name=reader --rw=randread --bs=4k --iodepth=1 \
				--ioengine=libaio --direct=1 --time_based --runtime=8 > "$W/fio.json" 2> "$W/fio.err" ||
				{ say "$S: fio failed: $(tail -c 300 "$W/fio.err")"; continue; }
			local p99
			p99=$(fio_json "$W/fio.json" reader '.read.clat_ns.percentile["99.000000"] / 1e3')
			emit "$S" "$D" "$s" p99_us "$p99" us fio "$r"
			echo "$s $r $p99" >> "$W/runs"
		done
	done
	set_sched "$D" none
	fio --output-format=json --filename="$M/data" --name=reader --rw=randread --bs=4k --iodepth=1 --ioengine=libaio \
		--direct=1 --time_based --runtime=600 > "$W/live-fio.json" 2> /dev/null &
	local FIO=$! t0=$SECONDS
	sleep 2
	TOOL_WINNER="" TOOL_TEXT=""
	if "$BIN" --ab-live "$A,$B" --disk "$D" --max-time "$T" --format json > "$W/live.json" 2> "$W/live.err"; then
		TOOL_WINNER=$(jq -r '.verdict[] | select(.figure == "your_read_p99_us") | .best // ""' "$W/live.json")
		TOOL_TEXT=$(jq -r '.verdict[] | select(.figure == "your_read_p99_us") | .text' "$W/live.json")
		for s in "$A" "$B"; do
			emit "$S" "$D" "$s" your_read_p99_us "$(jq -r --arg s "$s" '.summary[] | select(.scheduler == $s) | .your_read_p99_us // ""' "$W/live.json")" us tool
			emit "$S" "$D" "$s" your_read_p50_us "$(jq -r --arg s "$s" '.summary[] | select(.scheduler == $s) | .your_read_p50_us // ""' "$W/live.json")" us tool
		done
		say "$S: top readers per slot: $(jq -c '[.slots[] | .scheduler + " " + ([.top_readers[]? | .comm + ":" + (.n | tostring)] | join(","))] | .[0:4]' "$W/live.json")"
	else
		TOOL_TEXT="--ab-live failed: $(tail -c 300 "$W/live.err")"
	fi
	kill -INT "$FIO"; wait "$FIO" 2>/dev/null
	# the same reads as fio saw them over the whole run (both schedulers):
	# the tool's figure is the same reads timed in the kernel
	emit "$S" "$D" both p50_us "$(fio_json "$W/live-fio.json" reader '.read.clat_ns.percentile["50.000000"] / 1e3')" us fio-during-live
	emit "$S" "$D" both p99_us "$(fio_json "$W/live-fio.json" reader '.read.clat_ns.percentile["99.000000"] / 1e3')" us fio-during-live
	say "$S: the tool's --ab-live $A,$B in $((SECONDS - t0)) s: $TOOL_TEXT"
	verdict "$S" "$D" p99_us 1 "$A" "$B" "$W/runs" "$TOOL_WINNER" "$TOOL_TEXT"
	writer_stop "$M"
	tool_ab "$S-ab" "$D" "$M" "$A,$B" p99_us
	verdict "$S-ab" "$D" p99_us 1 "$A" "$B" "$W/runs" "$TOOL_WINNER" "$TOOL_TEXT"
	umount "$M"
}

# --- washout: how long after a switch the user's reads settle ---
# labhdd with ext4 and the card's load (a synced writer; fio's QD1 4 KiB
# direct random reader logging every read's latency); the scheduler goes
# kyber, none, bfq, mq-deadline, again and again, WASH_PERIOD s each (15),
# WASH_CYCLES times (3). Per switch: the reader's mean latency per second
# after it, over the mean of the segment's last 5 s (settled); per
# scheduler switched to, the median of those ratios per second, and the
# settle time: the start of the first second from which the ratio stays
# within 0.75-1.33 up to the settled part. The live A/B's washout (the
# part of a slot left out) should cover it. The switch times are taken
# from fio's start, so within a few tenths of a second.
wash_settle() {
	awk -v P="$1" '
		FNR == NR { st[++ns] = $1; to[ns] = $2; next }
		{ t = $1 / 1000; v = $2 / 1000
		  for (j = ns; j >= 1 && st[j] > t; j--) ;
		  if (j < 1) next
		  end = (j < ns) ? st[j + 1] : st[j] + P
		  if (t >= end - 5) { ss[j] += v; sn[j]++ }
		  b = int(t - st[j]); bs[j, b] += v; bn[j, b]++ }
		END {
		  nb = P - 5
		  for (j = 1; j <= ns; j++) {
		    if (!sn[j]) continue
		    set = ss[j] / sn[j]; k = ++cnt[to[j]]
		    for (b = 0; b < nb; b++) r[to[j], k, b] = bn[j, b] ? (bs[j, b] / bn[j, b]) / set : 1
		  }
		  for (s in cnt) {
		    line = ""; settle = 0
		    for (b = 0; b < nb; b++) {
		      n = 0; for (k = 1; k <= cnt[s]; k++) x[++n] = r[s, k, b]
		      for (i = 2; i <= n; i++) { y = x[i]; for (m = i - 1; m >= 1 && x[m] > y; m--) x[m + 1] = x[m]; x[m + 1] = y }
		      med[b] = x[int((n + 1) / 2)]
		      line = line sprintf(" %.2f", med[b])
		    }
		    for (b = nb - 1; b >= 0 && med[b] >= 0.75 && med[b] <= 1.33; b--) ;
		    printf "%s %d %d%s\n", s, b + 1, cnt[s], line
		  }
		}' "$2" "$3"
}

scene_washout() {
	local S=washout D=labhdd M=/mnt/labhdd P=${WASH_PERIOD:-15} C=${WASH_CYCLES:-3} c s
	mkfs.ext4 -q -F -E nodiscard "/dev/$D" && mkdir -p "$M" && mount "/dev/$D" "$M" || { say "$S: no filesystem"; return; }
	dd if=/dev/urandom of="$M/data" bs=1M count=256 status=none conv=fsync
	( while :; do dd if=/dev/zero of="$M/writer" bs=1M count=256 conv=fsync status=none; done ) &
	WRITER=$!
	set_sched "$D" mq-deadline
	sleep 3
	rm -f "$W"/wash_*.log
	fio --filename="$M/data" --name=reader --rw=randread --bs=4k --iodepth=1 --ioengine=libaio --direct=1 \
		--time_based --runtime=$((P * C * 4 + 30)) --write_lat_log="$W/wash" --log_avg_msec=0 > /dev/null 2>&1 &
	local FIO=$! t0
	t0=$(date +%s.%N)
	sleep 5
	: > "$W/switches"
	for c in $(seq "$C"); do
		for s in kyber none bfq mq-deadline; do
			set_sched "$D" "$s" || continue
			echo "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }') $s" >> "$W/switches"
			sleep "$P"
		done
	done
	kill "$FIO"; wait "$FIO" 2>/dev/null
	writer_stop "$M"
	local log
	log=$(ls "$W"/wash_clat.*.log 2>/dev/null | head -n 1)
	[ -n "$log" ] || { say "$S: fio wrote no latency log"; umount "$M"; return; }
	wash_settle "$P" "$W/switches" "$log" | while read -r s settle n curve; do
		say "$S: to $s ($n switches): settled after $settle s; mean read latency per second after the switch / settled:$curve"
		emit "$S" "$D" "$s" settle_s "$settle" s fio
	done
	umount "$M"
}

say "kernel $(uname -r), $(nproc) CPUs"
modprobe bfq && modprobe kyber-iosched || say "bfq or kyber not loaded"
lab_disks_make || { say "cannot make the lab's disks (null_blk through configfs)"; exit 1; }
for d in $LAB_DISKS; do say "$d: $(cat /sys/block/$d/queue/scheduler), rotational $(cat /sys/block/$d/queue/rotational)"; done
for s in $SCENES; do
	t0=$SECONDS
	case $s in
	seed003-coldstart) scene_coldstart ;;
	seed000-qd1) scene_qd1 ;;
	seed004-nvme) scene_nvme ;;
	card-live) scene_live ;;
	washout) scene_washout ;;
	*) say "unknown scene $s" ;;
	esac
	say "$s: $((SECONDS - t0)) s"
done
