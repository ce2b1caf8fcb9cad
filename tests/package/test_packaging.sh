#!/bin/bash
# Installed like the tools it sits beside (issue 20). From a copy of this
# tree: `make deb` builds the package; lintian finds no error in it; its
# contents and control fields are as they should be; the binary from the
# package runs (-V, --help); the man page, the bash and zsh completions,
# the exporter's unit and the dashboard are in place; both shells read
# the completions and bash registers them (what they offer is checked on
# the tree: tests/static/test_completions.sh). The unit passes systemd-analyze
# verify; every metric the dashboard's PromQL names is one the tool
# exports (from a scrape of its textfile), and promtool accepts every
# expression (as recording rules). Runs once per suite (tests/package).
# suite-budget: 20
. "$(dirname "$0")/../lib/common.sh"
need_root
need_cmd dpkg-buildpackage dh lintian zsh systemd-analyze promtool jq git
setup_scratch

# A copy of the tree as git has it (plus uncommitted changes to tracked
# files): dpkg-buildpackage builds in place and writes beside it.
mkdir "$SCRATCH/src"
(cd "$TOP" && git ls-files -z | xargs -0 tar -cf - --no-recursion) | tar -xf - -C "$SCRATCH/src" ||
	fail "cannot copy the tree"
(cd "$SCRATCH/src" && nice make deb > "$SCRATCH/build.log" 2>&1) || { tail -20 "$SCRATCH/build.log"; fail "make deb failed"; }
DEB=$(ls "$SCRATCH"/iosched-top_*_*.deb 2>/dev/null | grep -v dbgsym | head -n1)
[ -f "$DEB" ] || fail "no .deb beside the tree: $(ls "$SCRATCH")"

lintian --allow-root -E "$DEB" > "$SCRATCH/lintian" 2>&1 || { cat "$SCRATCH/lintian"; fail "lintian reports errors"; }
grep -q '^E:' "$SCRATCH/lintian" && fail "lintian: $(grep '^E:' "$SCRATCH/lintian")"

dpkg-deb -c "$DEB" | awk '{ print $6 }' > "$SCRATCH/contents"
for f in ./usr/bin/iosched-top ./usr/share/man/man1/iosched-top.1.gz ./usr/share/bash-completion/completions/iosched-top \
	./usr/share/zsh/vendor-completions/_iosched-top ./lib/systemd/system/iosched-top-exporter.service \
	./usr/share/iosched-top/grafana-dashboard.json ./usr/share/doc/iosched-top/copyright; do
	grep -qxF "$f" "$SCRATCH/contents" || fail "the package lacks $f"
done
for t in "$TOP"/themes/*.theme; do
	grep -qxF "./usr/share/iosched-top/themes/$(basename "$t")" "$SCRATCH/contents" || fail "the package lacks theme $(basename "$t")"
done
dpkg-deb -I "$DEB" > "$SCRATCH/info"
grep -q '^ Package: iosched-top$' "$SCRATCH/info" || fail "control: no Package: iosched-top"
grep -q '^ Depends: .*libncursesw6.*libproc2' "$SCRATCH/info" || fail "control: Depends: $(grep Depends "$SCRATCH/info")"
grep -q '^ Depends: .*libbpf' "$SCRATCH/info" || fail "the BPF part was not built (no libbpf in Depends) though Build-Depends has it"
grep -q '^ Description: ' "$SCRATCH/info" || fail "control: no Description"

R=$SCRATCH/root
dpkg-deb -x "$DEB" "$R"
"$R/usr/bin/iosched-top" -V | grep -q '^iosched-top ' || fail "the packaged binary's -V: $("$R/usr/bin/iosched-top" -V 2>&1)"
"$R/usr/bin/iosched-top" --help > "$SCRATCH/help" || fail "the packaged binary's --help failed"
zcat "$R/usr/share/man/man1/iosched-top.1.gz" | grep -q '^\.SH OPTIONS' || fail "the packaged man page has no OPTIONS"

# The completions as installed: both shells read them and bash registers
# its function (what they offer: tests/static/test_completions.sh).
BC=$R/usr/share/bash-completion/completions/iosched-top
ZC=$R/usr/share/zsh/vendor-completions/_iosched-top
zsh -n "$ZC" || fail "zsh cannot read its completion"
complete=$(bash -c ". '$BC'; complete -p iosched-top")
[ "$complete" = "complete -F _iosched_top iosched-top" ] || fail "complete -p: $complete"

# The unit, with its ExecStart pointing at the packaged binary.
sed "s|/usr/bin/iosched-top|$R/usr/bin/iosched-top|" "$R/lib/systemd/system/iosched-top-exporter.service" > "$SCRATCH/exporter.service"
systemd-analyze verify --man=no "$SCRATCH/exporter.service" > "$SCRATCH/verify" 2>&1 ||
	fail "systemd-analyze verify: $(cat "$SCRATCH/verify")"
grep -q -- '--read-only' "$SCRATCH/exporter.service" || fail "the exporter does not run --read-only"
score=$(systemd-analyze security --offline=yes "$SCRATCH/exporter.service" 2>/dev/null | sed -n 's/.*exposure level for [^:]*: \([0-9.]*\).*/\1/p')

# The dashboard names only metrics the tool exports, in expressions promtool takes.
D=$R/usr/share/iosched-top/grafana-dashboard.json
# (a probe file of the test's own: the probe has reads within the run, as
# it has not when it must first write its own 1 GiB file on a new machine)
dd if=/dev/urandom of="$SCRATCH/probe.dat" bs=1M count=16 status=none || fail "cannot write a probe file"
# (processes on, and refreshes enough for the BPF part to load, also on a
# loaded machine, where it took over 1.8 s: the "who the disk serves"
# panel's metrics come from it)
"$BIN" -b -n 12 -d 0.3 --procs 5 --probe-file "$SCRATCH/probe.dat" --prometheus-textfile "$SCRATCH/s.prom" > /dev/null ||
	fail "the scrape run failed"
sed -n 's/^\(iosched_[a-z0-9_]*\).*/\1/p' "$SCRATCH/s.prom" | sort -u > "$SCRATCH/exported"
jq -r '.. | objects | .expr? // empty' "$D" > "$SCRATCH/exprs"
[ -s "$SCRATCH/exprs" ] || fail "no PromQL in the dashboard"
grep -oE 'iosched_[a-z0-9_]+' "$SCRATCH/exprs" | sort -u | while read -r m; do
	grep -qxF "$m" "$SCRATCH/exported" || { echo "the dashboard names $m, which the tool does not export" >&2; exit 1; }
done || fail "the dashboard names a metric that is not exported"
{ echo "groups:"; echo "  - name: dashboard"; echo "    rules:"
  n=0; while IFS= read -r e; do n=$((n + 1)); printf '      - record: dashboard:expr_%d\n        expr: %s\n' "$n" "$(jq -Rn --arg e "$e" '$e')"; done < "$SCRATCH/exprs"
} > "$SCRATCH/rules.yml"
promtool check rules "$SCRATCH/rules.yml" > "$SCRATCH/promtool" 2>&1 || fail "promtool: $(cat "$SCRATCH/promtool")"
note "$(basename "$DEB"): $(wc -l < "$SCRATCH/contents") paths; lintian: $(grep -c '^[WI]:' "$SCRATCH/lintian") warnings or notes; exporter exposure $score; $(wc -l < "$SCRATCH/exprs") dashboard expressions checked"
echo "PASS"
