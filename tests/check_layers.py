#!/usr/bin/env python3
"""check_layers.py SOURCE_ROOT LAYERS — the folders' includes run only
downward (docs/architecture.md, "Folders").  LAYERS lists the folders from
the top down, each with its door (tests/layers.txt).  Every quoted #include
of a .c or .h file in a listed folder is found as the compiler finds it
(beside the file, else by name in the listed folders) and must name a header
of the same folder, a public one (include/), or the door of a folder below;
an include of a folder above, or of another folder's private header, fails,
and so does any circle of folders that include each other, and a folder of
more than MAX_C_FILES C files (a room a newcomer cannot take in)."""
import os
import re
import sys

MAX_C_FILES = 30
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def read_layers(path):
    order, doors = [], {}
    for line in open(path):
        words = line.split('#', 1)[0].split()
        if words:
            order.append(words[0])
            doors[words[0]] = set(w for w in words[1:] if w != '-')
    return order, doors


def folder_of(rel, order):
    """The longest listed folder holding rel, or None."""
    best = None
    for f in order:
        if rel.startswith(f + '/') and (best is None or len(f) > len(best)):
            best = f
    return best


def main():
    root, layers = sys.argv[1], sys.argv[2]
    order, doors = read_layers(layers)
    rank = {f: i for i, f in enumerate(order)}  # 0 is the top
    files = []
    for f in order:
        for dirpath, _, names in os.walk(os.path.join(root, f)):
            for n in sorted(names):
                rel = os.path.relpath(os.path.join(dirpath, n), root)
                if n.endswith(('.c', '.h')) and folder_of(rel, order) == f:
                    files.append(rel)
    by_name = {}
    for rel in files:
        if rel.endswith('.h'):
            by_name.setdefault(os.path.basename(rel), []).append(rel)

    bad, edges = [], {}
    for rel in files:
        here = folder_of(rel, order)
        text = open(os.path.join(root, rel), errors='replace').read()
        for m in INCLUDE.finditer(text):
            name = m.group(1)
            line = text.count('\n', 0, m.start()) + 1
            beside = os.path.normpath(os.path.join(os.path.dirname(rel), name))
            if os.path.exists(os.path.join(root, beside)):
                target = beside
            elif len(by_name.get(os.path.basename(name), [])) == 1 and '/' not in name:
                target = by_name[name][0]
            else:
                found = by_name.get(os.path.basename(name), [])
                bad.append('%s:%d: "%s" is %s' % (rel, line, name,
                                                  'ambiguous: ' + ', '.join(found) if found else 'nowhere'))
                continue
            there = folder_of(target, order)
            if there == here or there == 'include':
                continue
            edges.setdefault(here, set()).add(there)
            if rank[there] <= rank[here]:
                bad.append('%s:%d: includes %s, of %s, which is not below %s' % (rel, line, target, there, here))
            elif os.path.basename(target) not in doors[there]:
                door = ', '.join(sorted(doors[there])) or 'none'
                bad.append('%s:%d: includes %s, private to %s (its door: %s)' % (rel, line, target, there, door))

    for f in order:
        n = sum(1 for rel in files if rel.endswith('.c') and folder_of(rel, order) == f)
        if n > MAX_C_FILES:
            bad.append('%s holds %d C files, more than %d: split it into rooms' % (f, n, MAX_C_FILES))
    for circle in circles(edges):
        bad.append('a circle of folders that include each other: ' + ', '.join(circle))
    for b in bad:
        print(b)
    print('%d includes break the layers' % len(bad) if bad else
          'the includes of %d files in %d folders run only downward, through doors' % (len(files), len(order)))
    sys.exit(1 if bad else 0)


def circles(edges):
    """The strongly connected sets of more than one folder (Tarjan's)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


main()
