#!/usr/bin/env python3
"""callgraph.py FILE.c...: which file uses a function or table another
file defines, and the loops among them. A file's exported names are what
it defines at the start of a line without `static`; a use is the name
anywhere outside comments and strings. Prints each loop as
"loop: a.c b.c ..." with one use that closes it; exits 1 if there is
one, 0 if not."""
import re
import sys

def strip(text):
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    text = re.sub(r'//[^\n]*', ' ', text)
    return re.sub(r'"(\\.|[^"\\])*"', '""', text)

DEF = re.compile(r'^(?!static\b|extern\b|typedef\b|struct\b[^(=]*;)[a-z][^;\n(=]*?\b([a-z_][a-z0-9_]*)\s*[(=]', re.M)
KEYWORDS = {'if', 'for', 'while', 'switch', 'return', 'sizeof'}

def main(files):
    src = {f: strip(open(f, encoding='utf-8', errors='replace').read()) for f in files}
    owner = {}
    for f in files:
        for m in DEF.finditer(src[f]):
            if m.group(1) not in KEYWORDS:
                owner.setdefault(m.group(1), f)
    uses = {f: {} for f in files}
    for f in files:
        for m in re.finditer(r'\b([a-z_][a-z0-9_]*)\b', src[f]):
            g = owner.get(m.group(1))
            if g and g != f:
                uses[f].setdefault(g, m.group(1))
    # Tarjan: each strongly connected set of more than one file is a loop.
    index, low, stack, on, loops, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in uses[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                loops.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for f in files:
        if f not in index:
            visit(f)
    for comp in loops:
        print('loop:', ' '.join(comp))
        for a in comp:
            for b, name in sorted(uses[a].items()):
                if b in comp:
                    print('  %s uses %s (%s)' % (a, name, b))
    return 1 if loops else 0

if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
