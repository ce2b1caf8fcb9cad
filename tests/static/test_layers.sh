#!/bin/bash
# The layers of src/ hold, for every .c and .h file and through every
# header a file reaches (a header's own includes are part of what it
# hands on). From the bottom:
#   util     util, jsonv, safefile: used by all
#   base     src/base: typed events, scratch files
#   collect  src/collect: reads the system (include/blkmaps.h too, which
#            the BPF program shares)
#   act      src/act: changes it
#   session  src/session.c: what the views are given of the rest
#   frame    options, config, cli: the command line and the batch run
#   view     src/view: shows samples; it reaches act and the frame only
#            through the session, never directly
#   main     src/main.c: everything
# A file may include its own layer and the ones its line below names; a
# header belongs to the layer of its .c file (include/x.h <-> src/.../x.c).
# A call needs its declaration in scope (implicit declarations are errors
# in CI), so a call up a layer shows here as the include that brings it.
# The crossings still there are listed in tests/static/layers-known.txt,
# one "FILE: HEADER" a line: a new crossing fails, and so does a listed one
# that is gone (the list only shrinks; the goal is an empty list).
# suite-budget: 5
. "$(dirname "$0")/../lib/common.sh"
setup_scratch
cd "$TOP" || exit 1
KNOWN_FILE=tests/static/layers-known.txt
SCRATCH_CHAINS=$SCRATCH/chains

declare -A LAYER ALLOW INC
for c in src/*.c src/*/*.c; do
	d=${c%/*}; d=${d#src}; d=${d#/}
	LAYER[$(basename "$c" .c)]=${d:-top}
done
for m in util jsonv safefile; do LAYER[$m]=util; done
for m in options config cli; do LAYER[$m]=frame; done
LAYER[session]=session LAYER[main]=main LAYER[blkmaps]=collect LAYER[tuiview]=view
ALLOW=([util]="util" [base]="util base" [collect]="util base collect" [act]="util base collect act"
	[session]="util base collect act session" [frame]="util base collect act session frame"
	[view]="util base collect session view" [main]="util base collect act session frame view"
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

# The crossings: "FILE: HEADER" and, apart, the chain of each.
: > "$SCRATCH_CHAINS"
found=$(for f in "${files[@]}"; do
	m=$(basename "$f"); m=${m%.*}
	from=${LAYER[$m]}
	reach "$f" | while read -r h chain; do
		to=${LAYER[$h]:-}
		case " ${ALLOW[$from]} " in *" $to "*) continue ;; esac
		echo "$f: $h"
		echo "$f ($from) reaches $h ($to) through $chain" >> "$SCRATCH_CHAINS"
	done
done | sort)
known=$(grep -v '^#' "$KNOWN_FILE" | sed '/^$/d' | sort)
new=$(comm -13 <(echo "$known") <(echo "$found" | sed '/^$/d'))
gone=$(comm -23 <(echo "$known") <(echo "$found" | sed '/^$/d'))
if [ -n "$new" ]; then
	echo "$new" | while read -r l; do grep -F "${l%%:*} (" "$SCRATCH_CHAINS" | grep -F " reaches ${l#*: } ("; done >&2
	fail "includes across layers (see the top of this test)"
fi
[ -z "$gone" ] || fail "crossings no longer there: take them off $KNOWN_FILE: $gone"
note "$(echo "$found" | grep -c .) crossings left (goal 0), in $(echo "$found" | cut -d: -f1 | sort -u | grep -c .) files"
echo "PASS"
