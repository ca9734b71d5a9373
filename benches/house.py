#!/usr/bin/env python3
"""The house's measurements (issue 37): per crate, the file-import circles found
from the code's own `crate::`/`super::` paths, the files over 800 lines and the
functions over 150 lines. `python3 benches/house.py [--check]`; with --check it
exits 1 when a circle has more than three files or a limit is broken."""
import os, re, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FILE_LIMIT, FN_LIMIT, CIRCLE_LIMIT = 800, 150, 3


def crates():
    for dirpath, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d not in ("target", ".git", "node_modules")]
        if "Cargo.toml" in files and os.path.isdir(os.path.join(dirpath, "src")):
            yield dirpath


def modules(src):
    """module path (tuple) -> file"""
    out = {}
    for dirpath, _, files in os.walk(src):
        for f in files:
            if not f.endswith(".rs"):
                continue
            rel = os.path.relpath(os.path.join(dirpath, f), src)[:-3].split(os.sep)
            if rel[-1] in ("lib", "main", "mod"):
                rel = rel[:-1]
            if rel and rel[0] == "bin":
                continue
            out[tuple(rel)] = os.path.join(dirpath, f)
    return out


PATH = re.compile(r"\b(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)+)")
GROUP = re.compile(r"\b(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)*)::\{([^;]*?)\};", re.S)


def strip(text):
    text = re.sub(r"//[^\n]*", "", text)
    return re.sub(r'"(?:\\.|[^"\\])*"', '""', text)


def root_names(mods):
    """names the crate root re-exports (`pub use module::{A, B}`) -> their module"""
    names = {}
    root = mods.get(())
    if not root:
        return names
    text = strip(open(root, encoding="utf-8").read())
    for m in re.finditer(r"pub use ((?:[a-z_][a-z0-9_]*::)*)(?:\{([^}]*)\}|([A-Za-z_][A-Za-z0-9_]*));", text):
        path = tuple(p for p in m.group(1).split("::") if p and p != "crate")
        items = m.group(2).split(",") if m.group(2) else [m.group(3)]
        for item in items:
            item = item.strip().split(" as ")[-1].strip()
            if item and path in mods:
                names[item] = path
    return names


def edges(mods):
    out = {m: set() for m in mods}
    reexported = root_names(mods)
    for mod, path in mods.items():
        text = strip(open(path, encoding="utf-8").read())
        # inline `#[cfg(test)] mod tests { ... }` is the file's own concern
        cut = re.search(r"#\[cfg\(test\)\]\s*mod\s+\w+\s*\{", text)
        if cut:
            text = text[: cut.start()]
        is_dir = os.path.basename(path) in ("mod.rs", "lib.rs", "main.rs")
        paths = []
        for m in GROUP.finditer(text):
            for item in re.split(r",", m.group(3)):
                head = item.strip().split(" as ")[0].split("::{")[0].strip()
                if head:
                    paths.append((m.group(1), m.group(2) + "::" + head))
        for m in PATH.finditer(text):
            paths.append((m.group(1), m.group(2)))
        for kind, rest in paths:
            parts = [p for p in rest.split("::") if p]
            if kind == "crate":
                base = []
            else:
                base = list(mod) if is_dir else list(mod[:-1])
                if kind == "super":
                    base = base[:-1] if base else base
                    while parts and parts[0] == "super":
                        parts.pop(0)
                        base = base[:-1]
            full = base + parts
            if kind == "crate" and full and tuple(full[:1]) not in mods and full[0] in reexported:
                full = list(reexported[full[0]]) + full[1:]
            for n in range(len(full), -1, -1):
                target = tuple(full[:n])
                if target in mods:
                    if target != mod and target != ():
                        out[mod].add(target)
                    break
    return out


def sccs(graph):
    index, low, stack, on, res, counter = {}, {}, [], set(), [], [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
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
                res.append(comp)

    for v in graph:
        if v not in index:
            visit(v)
    return res


FN = re.compile(r"^([ \t]*)(?:pub(?:\([^)]*\))?\s+)?(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?fn\s+(\w+)", re.M)


def long_functions(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    text = "\n".join(lines)
    cut = re.search(r"^#\[cfg\(test\)\]\s*\n\s*mod\s+\w+\s*\{", text, re.M)
    end_line = text[: cut.start()].count("\n") if cut else len(lines)
    out = []
    for m in FN.finditer(text):
        start = text[: m.start()].count("\n")
        if start >= end_line:
            break
        indent = len(m.group(1))
        for i in range(start + 1, len(lines)):
            line = lines[i]
            if line.strip() == "}" and len(line) - len(line.lstrip()) == indent:
                if i - start + 1 > FN_LIMIT:
                    out.append((m.group(2), i - start + 1))
                break
            if line.rstrip().endswith(";") and i == start:
                break
    return out


def main():
    check = "--check" in sys.argv
    bad = False
    for crate in sorted(crates()):
        name = os.path.relpath(crate, ROOT) or "."
        mods = modules(os.path.join(crate, "src"))
        circles = sccs(edges(mods))
        big = [len(c) for c in circles]
        print(f"{name}: {len(mods)} files, import circles: {sorted(big, reverse=True) or 'none'}")
        for c in circles:
            if len(c) > CIRCLE_LIMIT:
                bad = True
                print("   circle:", ", ".join(sorted("::".join(m) or "lib" for m in c)))
        for mod, path in sorted(mods.items()):
            n = sum(1 for _ in open(path, encoding="utf-8"))
            rel = os.path.relpath(path, ROOT)
            if n > FILE_LIMIT:
                bad = True
                print(f"   file over {FILE_LIMIT} lines: {rel} ({n})")
            for fname, length in long_functions(path):
                bad = True
                print(f"   function over {FN_LIMIT} lines: {rel} {fname} ({length})")
    if check and bad:
        sys.exit(1)


main()
