#!/bin/bash
# The bash and zsh completions (completions/) offer every option of the
# tool's table, as --help lists it, and nothing else; both shells can read
# them; --theme completes to the themes in themes/. Static: no root, no
# device (the package test checks they are installed and registered).
# suite-budget: 5
. "$(dirname "$0")/../lib/common.sh"
need_cmd zsh
setup_scratch
[ -x "$BIN" ] || fail "$BIN missing (make)"

"$BIN" --help > "$SCRATCH/help" || fail "--help failed"
grep -oE '^ +(-[a-zA-Z], )?--[a-z-]+' "$SCRATCH/help" | sed 's/.*--/--/' | sort > "$SCRATCH/opts"
[ "$(wc -l < "$SCRATCH/opts")" -ge 20 ] || fail "--help lists only $(wc -l < "$SCRATCH/opts") options: $(cat "$SCRATCH/help")"
BC=$TOP/completions/iosched-top.bash
ZC=$TOP/completions/_iosched-top
bash -n "$BC" || fail "bash cannot read its completion"
bash -c ". '$BC'; COMP_WORDS=(iosched-top --); COMP_CWORD=1; _iosched_top; printf '%s\n' \"\${COMPREPLY[@]}\"" |
	sort > "$SCRATCH/bash-opts"
cmp -s "$SCRATCH/opts" "$SCRATCH/bash-opts" || fail "bash completion and --help differ: $(diff "$SCRATCH/opts" "$SCRATCH/bash-opts" | head -5)"
grep -oE "(^|[{,'])--[a-z-]+" "$ZC" | sed "s/^[{,']//" | sort -u > "$SCRATCH/zsh-opts"
cmp -s "$SCRATCH/opts" "$SCRATCH/zsh-opts" || fail "zsh completion and --help differ: $(diff "$SCRATCH/opts" "$SCRATCH/zsh-opts" | head -5)"
zsh -n "$ZC" || fail "zsh cannot read its completion"
themes=$(bash -c ". '$BC'; COMP_WORDS=(iosched-top --theme ''); COMP_CWORD=2; _iosched_top; printf '%s\n' \"\${COMPREPLY[@]}\"" | sort | xargs)
want=$(for t in "$TOP"/themes/*.theme; do basename "$t" .theme; done | sort | xargs)
[ "$themes" = "$want" ] || fail "--theme completes to '$themes', the themes are '$want'"
note "$(wc -l < "$SCRATCH/opts") options offered by both shells; themes: $themes"
echo "PASS"
