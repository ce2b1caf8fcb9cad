#!/bin/bash
# The layers of src/ hold (issue 18): base/ includes nothing of collect/,
# act/ or view/; collect/ nothing of act/ or view/; act/ nothing of view/;
# view/ nothing of act/ (it will talk to a session module). A header
# belongs to the layer of its .c file (include/x.h <-> src/LAYER/x.c);
# the top-level utilities (util, jsonv, safefile) may be used by all, and
# the views may use the session (src/session.c), which holds the rest.
# Crossings that must stay a while would be listed in KNOWN (none are);
# a new crossing fails, and so does a listed one that is gone (the list
# only shrinks).
# suite-budget: 5
. "$(dirname "$0")/../lib/common.sh"
cd "$TOP" || exit 1

KNOWN=""

declare -A LAYER
for c in src/*.c src/*/*.c; do
	d=${c%/*}; d=${d#src}; d=${d#/}
	LAYER[$(basename "$c" .c)]=${d:-top}
done
found=$(for c in src/base/*.c src/collect/*.c src/act/*.c src/view/*.c; do
	from=$(basename "$(dirname "$c")")
	for h in $(sed -n 's/^#include "\([a-z0-9_]*\)\.h".*/\1/p' "$c"); do
		to=${LAYER[$h]:-}
		case $to in ""|base|"$from") continue ;; esac
		case $h in util|jsonv|safefile) continue ;; esac
		# views talk to the session (src/session.c), nothing else of the top
		[ "$h" = session ] && [ "$from" = view ] && continue
		# upward only: act and view may use collect
		[ "$to" = collect ] && { [ "$from" = act ] || [ "$from" = view ]; } && continue
		echo "$c: $h.h ($to)"
	done
done | sort)
new=$(comm -13 <(echo "$KNOWN" | sed '/^$/d' | sort) <(echo "$found" | sed '/^$/d'))
gone=$(comm -23 <(echo "$KNOWN" | sed '/^$/d' | sort) <(echo "$found" | sed '/^$/d'))
[ -z "$new" ] || fail "includes across layers (see the top of this test): $new"
[ -z "$gone" ] || fail "crossings no longer there: take them off the list in $0: $gone"
note "$(echo "$found" | grep -c .) crossings (goal 0)"
echo "PASS"
