"""The house rules of issue 16, checked on the source: no private name crosses a module, and
the LP core sits below the methods (``lpbn.lp`` imports no method; ``dual`` and ``highs``
never import each other)."""

from __future__ import annotations

import ast
from pathlib import Path

import lpbn

ROOT = Path(lpbn.__file__).parent


def _modules():
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT.parent).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        yield ".".join(parts), path, path.name == "__init__.py"


def _absolute(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    base = module.split(".")
    base = base if is_package else base[:-1]
    base = base[:len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _imports(module: str, path: Path, is_package: bool):
    """(imported lpbn module or name's module, names) for every import of an lpbn module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            target = _absolute(module, is_package, node)
            if target == "lpbn" or target.startswith("lpbn."):
                yield node, target, [a.name for a in node.names]
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("lpbn."):
                    yield node, a.name, []


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def test_no_private_name_crosses_a_module():
    bad = []
    for module, path, is_package in _modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        module_aliases = set()
        for node, target, names in _imports(module, path, is_package):
            if isinstance(node, ast.ImportFrom):
                for a in node.names:
                    if _private(a.name):
                        bad.append(f"{module}: from {target} import {a.name}")
                    sub = f"{target}.{a.name}"
                    if (ROOT.parent / Path(*sub.split("."))).with_suffix(".py").exists() or \
                            (ROOT.parent / Path(*sub.split("."))).is_dir():
                        module_aliases.add(a.asname or a.name)
            else:
                for a in node.names:
                    if a.asname:
                        module_aliases.add(a.asname)
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and _private(node.attr) and \
                    isinstance(node.value, ast.Name) and node.value.id in module_aliases:
                bad.append(f"{module}: {node.value.id}.{node.attr}")
    assert not bad, "private names used across modules:\n" + "\n".join(bad)


def test_lp_core_sits_below_the_methods():
    bad = []
    for module, path, is_package in _modules():
        for _, target, names in _imports(module, path, is_package):
            targets = [target] + [f"{target}.{n}" for n in names]
            for t in targets:
                if module.startswith("lpbn.lp") and t.startswith(("lpbn.dual", "lpbn.highs", "lpbn.solve")):
                    bad.append(f"{module} imports {t}")
                if module.startswith("lpbn.dual") and t.startswith("lpbn.highs"):
                    bad.append(f"{module} imports {t}")
                if module.startswith("lpbn.highs") and t.startswith("lpbn.dual"):
                    bad.append(f"{module} imports {t}")
    assert not bad, "\n".join(sorted(set(bad)))
