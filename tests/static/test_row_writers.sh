#!/bin/bash
# One writer per process row: every figure of a row of sample->procs is
# set where the row is made, in src/procs/ (procs_collect, the block
# layer's figures included: procblk.c). Whoever changes a row then has one
# folder to read, not a row made in one place and edited in another. The
# one other place allowed is src/model/replay.c: it makes a replayed
# sample's rows from a recording (a row being made, not one edited).
# Outside those, no file may
#   - take a pointer that can write to an existing row
#     (struct proc_row *r = &out->procs[i], anything but NULL),
#   - assign to a field of a row through the array (procs[i].x = ...),
#   - grow, append to, clear or sort the rows array (util_grow, nprocs++,
#     memset, memcpy, qsort on ...procs),
#   - define a function that takes a row it could write
#     (a "struct proc_row *" parameter without const).
# Reading rows (const struct proc_row *) is everyone's. Naming a row's
# command line later (procs_name, through sampler_name_rows) is procs/'s
# own call. The test first shows that it finds each kind in a file made on
# purpose, so a pattern that matches nothing cannot pass it.
# suite-budget: 5
. "$(dirname "$0")/../lib/common.sh"
setup_scratch
cd "$TOP" || exit 1
command -v grep >/dev/null && echo x | grep -qP x || fail "needs grep with -P (PCRE)"

PATTERNS=(
	'(?<!const )struct proc_row \*\s*\w+\s*=(?!\s*NULL\b)'
	'procs\[[^]]*\]\.\w+(\[[^]]*\])?\s*([-+*/|&]?=(?!=)|\+\+|--)'
	'util_grow\(\(void \*\*\)\s*&[\w>.-]*procs\s*,'
	'\bnprocs\s*(\+\+|\+=)'
	'\b(memset|memcpy|memmove|qsort)\(\s*&?[\w>.-]*procs\b'
	'^(?!\s*(typedef|struct\s+\w+\s*\{)).*\w\s*\(([^()]*,)?\s*(?<!const )struct proc_row \*\s*\w*\s*[,)]'
)

# writers FILE...: each line of the files that writes rows, as grep -n says it.
writers() {
	local p
	for p in "${PATTERNS[@]}"; do grep -HnP "$p" "$@"; done | sort -u
}

# Files made on purpose: each writes rows one way; one only reads them.
mkdir -p "$SCRATCH/src"
cat > "$SCRATCH/src/w1.c" <<'EOF'
static void w1(struct sample *out)
{
	struct proc_row *r = &out->procs[out->nprocs - 1];
	(void)r;
}
EOF
printf 'static void w2(struct sample *out)\n{\n\tout->procs[3].to_disk_Bps = -1;\n}\n' > "$SCRATCH/src/w2.c"
printf 'static void w3(struct sample *out)\n{\n\tout->procs[i].blk_n[op] += 1;\n}\n' > "$SCRATCH/src/w3.c"
printf 'static void w4(struct sample *out)\n{\n\tutil_grow((void **)&out->procs, &out->procs_cap, 1, 8);\n}\n' > "$SCRATCH/src/w4.c"
printf 'static void w5(struct sample *s, struct proc_row *r)\n{\n\t(void)s;\n\t(void)r;\n}\n' > "$SCRATCH/src/w5.c"
printf 'static void w6(struct sample *s)\n{\n\tqsort(s->procs, s->nprocs, 8, by);\n}\n' > "$SCRATCH/src/w6.c"
cat > "$SCRATCH/src/reader.c" <<'EOF'
static double reader(const struct sample *s, const struct proc_row *x)
{
	const struct proc_row *r = &s->procs[0];
	struct proc_row *none = NULL;
	(void)none;
	return r->to_disk_Bps + x->read_Bps + (s->procs[1].blk_n[0] == 0);
}
EOF
for w in w1 w2 w3 w4 w5 w6; do
	writers "$SCRATCH/src/$w.c" | grep -q . || fail "the row write made on purpose in $w.c was not found"
done
out=$(writers "$SCRATCH/src/reader.c")
[ -z "$out" ] || fail "a file that only reads rows was taken for a writer: $out"

# The sources that can see a row: the layers above procs/ (those below
# cannot include procs/procs.h: test_layers.sh; bpf/'s struct blk_reading
# has a procs array of its own), but replay.c.
mapfile -t files < <(find src include -name '*.[ch]' ! -name '*.bpf.c' ! -path src/model/replay.c \
	! -path 'src/procs/*' ! -path 'include/procs/*' ! -path '*/base/*' ! -path '*/read/*' ! -path '*/probe/*' \
	! -path '*/bpf/*' | sort)
[ ${#files[@]} -gt 80 ] || fail "only ${#files[@]} files found under src and include"
grep -q 'struct proc_row' "${files[@]}" || fail "no file outside src/procs/ names struct proc_row: the check reads nothing"
found=$(writers "${files[@]}")
[ -z "$found" ] || { echo "$found" >&2; fail "process rows written outside src/procs/ (set the figure where the row is made: src/procs/)"; }
note "no process row written outside src/procs/ (and replay.c) in ${#files[@]} files"
echo "PASS"
