#!/bin/bash
# The layers are the folders of src/ (and of include/, which mirrors it:
# include/probe/hist.h is src/probe/hist.c's API; a header used only in
# its own folder lives there, beside its sources). From the bottom:
#   base     util, JSON, safe files, typed events, scratch files
#   read     what the kernel says: /proc, /sys, netlink, uevents
#   probe    the latency probe: its reader, files, windows, histograms
#   bpf      each BPF part as a trio: x.bpf.c, x_maps.h, its loader x.c
#   procs    process rows, every figure set where the row is made
#   model    the tick that assembles a sample, and what reasons over
#            samples (switch comparisons, the A/B verdict's statistics,
#            the column and record tables, replay)
#   act      changes the system, through one worker
#   config   the command line and the configuration file, as plain data
#   session  src/session.c: what the outputs and views are given
#   out      text, CSV, JSON, recordings, Prometheus, reports
#   view     the full screen only; it reaches act only through the
#            session, never directly
#   main     src/main.c, src/cli.c: everything
# A file may include its own folder and the ones its line below names,
# directly or through the headers it includes (a header's own includes
# are part of what it hands on). Headers are named by folder
# ("probe/hist.h"); a bare name is a header beside the including file.
# A call needs its declaration in scope (implicit declarations are errors
# in CI), so a call up a layer shows here as the include that brings it.
# Any crossing fails, with the chain of includes that makes it.
# suite-budget: 10
. "$(dirname "$0")/../lib/common.sh"
cd "$TOP" || exit 1

declare -A ALLOW INC
ALLOW=([base]="base" [read]="base read" [probe]="base read probe" [bpf]="base read probe bpf"
	[procs]="base read probe bpf procs" [model]="base read probe bpf procs model"
	[act]="base read probe bpf procs model act" [config]="base read probe bpf procs model act config"
	[session]="base read probe bpf procs model act config session"
	[out]="base read probe bpf procs model config session out"
	[view]="base read probe bpf procs model config session out view"
	[main]="base read probe bpf procs model act config session out view main")

# folder FILE: the layer a file of src/ or include/ belongs to.
folder() {
	case $1 in
	src/main.c | src/cli.c | include/cli.h) echo main ;;
	src/session.c | include/session.h) echo session ;;
	src/*/* | include/*/*) local d=${1#*/}; echo "${d%%/*}" ;;
	*) echo "?" ;;
	esac
}

# path FROM NAME: the file an include "NAME" in FROM means (as -iquote
# include -iquote src finds it, after the including file's own folder).
path() {
	local dir=${1%/*} p
	for p in "$dir/$2" "include/$2" "src/$2"; do
		[ -f "$p" ] && { echo "$p"; return; }
	done
	echo "missing:$2"
}

files=(src/*.c src/*/*.c src/*/*.h include/*.h include/*/*.h)
for f in "${files[@]}"; do
	INC[$f]=$(sed -n 's/^#include "\([a-z0-9_/]*\.h\)".*/\1/p' "$f" |
		while read -r n; do path "$f" "$n"; done | xargs)
done

# reach FILE: each file FILE includes, once, with the chain that gets there.
reach() {
	local -A seen=()
	local queue=() q h n
	for h in ${INC[$1]}; do queue+=("$h $h"); done
	while [ ${#queue[@]} -gt 0 ]; do
		q=${queue[0]} queue=("${queue[@]:1}") h=${q%% *}
		[ -n "${seen[$h]:-}" ] && continue
		seen[$h]=1
		echo "$q"
		for n in ${INC[$h]:-}; do queue+=("$n ${q#* } > $n"); done
	done
}

# Each file's layer, found once (a subshell per lookup in the loops below
# made this test take 30 s).
declare -A LAYER
for f in "${files[@]}"; do LAYER[$f]=$(folder "$f"); done

bad=""
for f in "${files[@]}"; do
	l=${LAYER[$f]}
	[ -n "${ALLOW[$l]:-}" ] || bad="$bad $f"
	case " ${INC[$f]} " in *" missing:"*) bad="$bad $f(${INC[$f]})" ;; esac
done
[ -z "$bad" ] || fail "not in a layer's folder, or an include not found:$bad"

# What each file reaches, once.
declare -A REACH
for f in "${files[@]}"; do REACH[$f]=$(reach "$f"); done

# A header of include/ says what a folder offers the others; one that no
# other folder reaches (directly or through another header) belongs
# beside its sources.
private=""
for h in include/*/*.h; do
	l=${LAYER[$h]} others=0
	for f in "${files[@]}"; do
		[ "${LAYER[$f]}" = "$l" ] && continue
		case $'\n'"${REACH[$f]}" in *$'\n'"$h "*) others=1; break ;; esac
	done
	[ $others = 1 ] || private="$private $h"
done
[ -z "$private" ] || fail "headers only their own folder uses (move them to src/FOLDER/):$private"

# Every crossing, with the chain of includes that makes it.
found=$(for f in "${files[@]}"; do
	from=${LAYER[$f]}
	while read -r h chain; do
		[ -n "$h" ] || continue
		to=${LAYER[$h]:-$(folder "$h")}
		case " ${ALLOW[$from]} " in *" $to "*) continue ;; esac
		echo "$f ($from) reaches $h ($to) through $chain"
	done <<<"${REACH[$f]}"
done)
[ -z "$found" ] || { echo "$found" >&2; fail "includes across layers (see the top of this test)"; }
note "no crossings in ${#files[@]} files"
echo "PASS"
