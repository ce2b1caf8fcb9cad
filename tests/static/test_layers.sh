#!/bin/bash
# The layers of src/ hold, for every .c and .h file and through every
# header a file reaches (a header's own includes are part of what it
# hands on). From the bottom:
#   util     util, jsonv, safefile: used by all
#   base     src/base: typed events, scratch files
#   collect  src/collect: reads the system (include/blkmaps.h and taskmaps.h too, which
#            the BPF programs share)
#            (include/settings.h and include/abdata.h too: what act
#            changes and measures, as plain data the views show)
#   act      src/act: changes it
#   frame    options, config: the command line and the configuration
#            file, parsed into plain data
#   session  src/session.c: what the views are given of the rest
#   view     src/view: shows samples; it reaches act only through the
#            session, never directly
#   main     src/main.c, src/cli.c: everything (cli.c runs the commands
#            that need no screen: --set, --ab and its report, the sweep)
# A file may include its own layer and the ones its line below names; a
# header belongs to the layer of its .c file (include/x.h <-> src/.../x.c).
# A call needs its declaration in scope (implicit declarations are errors
# in CI), so a call up a layer shows here as the include that brings it.
# Any crossing fails, with the chain of includes that makes it.
# suite-budget: 5
. "$(dirname "$0")/../lib/common.sh"
cd "$TOP" || exit 1

declare -A LAYER ALLOW INC
for c in src/*.c src/*/*.c; do
	d=${c%/*}; d=${d#src}; d=${d#/}
	LAYER[$(basename "$c" .c)]=${d:-top}
done
for m in util jsonv safefile; do LAYER[$m]=util; done
for m in options config; do LAYER[$m]=frame; done
LAYER[session]=session LAYER[main]=main LAYER[cli]=main LAYER[tuiview]=view
for m in blkmaps taskmaps settings abdata sampleparts; do LAYER[$m]=collect; done
ALLOW=([util]="util" [base]="util base" [collect]="util base collect" [act]="util base collect act"
	[frame]="util base collect act frame" [session]="util base collect act frame session"
	[view]="util base collect frame session view" [main]="util base collect act frame session view main"
	[bpf]="collect")
files=(src/*.c src/*/*.c include/*.h)
for f in "${files[@]}"; do
	INC[$f]=$(sed -n 's/^#include "\([a-z0-9_]*\)\.h".*/\1/p' "$f" | xargs)
done

# reach FILE: each header FILE reaches, once, with the chain that gets there.
reach() {
	local -A seen=()
	local queue=() q h n
	for h in ${INC[$1]}; do queue+=("$h $h"); done
	while [ ${#queue[@]} -gt 0 ]; do
		q=${queue[0]} queue=("${queue[@]:1}") h=${q%% *}
		[ -n "${seen[$h]:-}" ] && continue
		seen[$h]=1
		echo "$q"
		for n in ${INC[include/$h.h]:-}; do queue+=("$n ${q#* } > $n"); done
	done
}

unknown=""
for f in "${files[@]}"; do
	m=$(basename "$f"); m=${m%.*}
	[ -n "${LAYER[$m]:-}" ] || unknown="$unknown $f"
done
[ -z "$unknown" ] || fail "no layer for:$unknown (a header without a .c needs one here)"

# Every crossing, with the chain of includes that makes it.
found=$(for f in "${files[@]}"; do
	m=$(basename "$f"); m=${m%.*}
	from=${LAYER[$m]}
	reach "$f" | while read -r h chain; do
		to=${LAYER[$h]:-}
		case " ${ALLOW[$from]} " in *" $to "*) continue ;; esac
		echo "$f ($from) reaches $h ($to) through $chain"
	done
done)
[ -z "$found" ] || { echo "$found" >&2; fail "includes across layers (see the top of this test)"; }
note "no crossings in ${#files[@]} files"
echo "PASS"
