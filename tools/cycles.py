"""Import cycles of lpbn, function-local imports included (import-linter sees those too, but
this lists them per strongly connected component).

Run from the repository root: ``python tools/cycles.py`` prints the strongly connected
components of the import graph (all imports, then top-level ones only); ``python
tools/cycles.py x`` also prints the function-local edges inside the biggest component.
"""

from __future__ import annotations

import ast
import pathlib
import sys

import networkx as nx


def modules(root: pathlib.Path) -> dict[str, pathlib.Path]:
    out = {}
    for p in root.rglob("*.py"):
        if "instances" in p.parts:
            continue
        m = ".".join(p.with_suffix("").parts)
        out[m[:-9] if m.endswith(".__init__") else m] = p
    return out


def walk(node, in_function: bool):
    for ch in ast.iter_child_nodes(node):
        yield ch, in_function
        yield from walk(ch, in_function or isinstance(ch, (ast.FunctionDef, ast.AsyncFunctionDef)))


def targets(node, pkg: str, mods: dict) -> list[str]:
    if isinstance(node, ast.ImportFrom):
        if node.level:
            base = pkg.split(".")
            tgt = ".".join(base[:len(base) - node.level + 1] + ([node.module] if node.module else []))
        else:
            tgt = node.module or ""
        return [f"{tgt}.{a.name}" if f"{tgt}.{a.name}" in mods else tgt for a in node.names]
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    return []


def graphs(root: pathlib.Path) -> tuple[nx.DiGraph, nx.DiGraph]:
    mods = modules(root)
    every, top = nx.DiGraph(), nx.DiGraph()
    for m, p in mods.items():
        pkg = m if p.name == "__init__.py" else m.rsplit(".", 1)[0]
        for node, local in walk(ast.parse(p.read_text()), False):
            for t in targets(node, pkg, mods):
                if t in mods and t != m:
                    every.add_edge(m, t, local=local)
                    if not local:
                        top.add_edge(m, t)
    return every, top


def main(argv: list[str]) -> int:
    every, top = graphs(pathlib.Path("lpbn"))
    for name, g in (("all", every), ("top-level", top)):
        sccs = sorted((c for c in nx.strongly_connected_components(g) if len(c) > 1), key=len, reverse=True)
        print(name, [(len(c), sorted(c)) for c in sccs])
    if argv:
        sub = every.subgraph(max(nx.strongly_connected_components(every), key=len))
        for u, v, d in sub.edges(data=True):
            if d["local"]:
                print("local", u, "->", v)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
