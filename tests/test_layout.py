"""The house rules of issues 16 and 55, checked on the source: no private name crosses a module
(import-linter does not check that), and the import-linter contracts of pyproject.toml (the
layers core -> LP -> methods -> data models -> portfolio -> front door -> CLI and bench, with
``dual`` and ``highs`` independent, and no import cycle) are kept and cover every module."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import pytest

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


def _contracts() -> dict:
    pyproject = ROOT.parent / "pyproject.toml"
    if not pyproject.exists():
        pytest.skip("no pyproject.toml beside the package (an installed wheel)")
    return tomllib.loads(pyproject.read_text(encoding="utf-8"))["tool"]["importlinter"]


def test_import_contracts_are_kept():
    """The layers and the no-cycle contracts of pyproject.toml (what ``PYTHONPATH=. lint-imports``
    checks): every import counts, the function-local ones too."""
    _contracts()
    cli = pytest.importorskip("importlinter.cli")
    assert cli.lint_imports(config_filename=str(ROOT.parent / "pyproject.toml"), no_cache=True) == 0


def test_every_module_sits_in_a_layer():
    """import-linter checks only the modules a layer names: a new top-level module or package
    must be placed in one (docs/layout.md says which)."""
    layers = next(c for c in _contracts()["contracts"] if c["type"] == "layers")["layers"]
    placed = {m.strip() for layer in layers for m in re.split(r"[|:]", layer)}
    top = {f"lpbn.{p.stem}" for p in ROOT.glob("*.py") if p.stem != "__init__"} | \
        {f"lpbn.{p.name}" for p in ROOT.iterdir() if (p / "__init__.py").exists()}
    assert not sorted(top - placed), "place these in a layer of pyproject.toml's contract"
