#!/bin/bash
# No two files of src/ use each other in a loop, directly or around
# several files: each module can be read, tested and changed with only the
# ones below it in mind. In the full screen this is what keeps the panels
# from calling back into tui.c: screen.c and listbox.c at the bottom, the
# panels on them, tui_keys.c on the panels, tui.c on top (tuiview.h).
# tests/lib/callgraph.py finds the uses (a function or table a file
# defines, named in another); this test first shows that it finds a loop
# made on purpose, so a silent parser cannot pass it.
# suite-budget: 5
. "$(dirname "$0")/../lib/common.sh"
setup_scratch
cd "$TOP" || exit 1
command -v python3 >/dev/null || fail "needs python3 (make test-deps)"
GRAPH=tests/lib/callgraph.py

# A loop on purpose: a.c and b.c call each other, c.c only calls a.c.
mkdir -p "$SCRATCH/loop"
printf 'int a_one(void)\n{\n\treturn b_two();\n}\n' > "$SCRATCH/loop/a.c"
printf 'int b_two(void)\n{\n\treturn a_three();\n}\nint a_three_user = 0;\n' > "$SCRATCH/loop/b.c"
printf 'int a_three(void)\n{\n\treturn 0;\n}\n' >> "$SCRATCH/loop/a.c"
printf 'static int c_only(void)\n{\n\treturn a_one();\n}\n' > "$SCRATCH/loop/c.c"
out=$(python3 "$GRAPH" "$SCRATCH"/loop/*.c) && fail "the loop made on purpose was not found"
echo "$out" | grep -q "^loop: .*/a.c .*/b.c$" || fail "the loop found is not a.c b.c: $out"

mapfile -t files < <(find src -name '*.c' ! -name '*.bpf.c' | sort)
[ ${#files[@]} -gt 50 ] || fail "only ${#files[@]} files found under src"
out=$(python3 "$GRAPH" "${files[@]}") || { echo "$out" >&2; fail "files of src/ that use each other in a loop"; }
note "no loops among ${#files[@]} files"
echo "PASS"
