"""The wheel ships every package and the bundled instances (issue 55: `lpbn bench smoke` after a
plain `pip install .`)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from lpbn.bench.suite import list_suites, load_suite
from lpbn.bundled import instances_dir

ROOT = Path(__file__).resolve().parent.parent


def test_every_package_is_listed_in_pyproject():
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    listed = set(conf["tool"]["setuptools"]["packages"])
    src = ROOT / "lpbn"
    if not src.is_dir():
        pytest.skip("no source tree beside the tests")
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in src.rglob("__init__.py")}
    assert found <= listed, f"packages missing from pyproject.toml: {sorted(found - listed)}"
    assert listed - found == {"lpbn.instances"}


def test_bundled_suites_are_found_wherever_lpbn_is_installed():
    d = instances_dir()
    assert (d / "suites" / "smoke.toml").is_file()
    assert "smoke" in list_suites()
    suite = load_suite("smoke")
    for e in suite.entries:
        for f in (e.file, e.data):
            assert f is None or f.exists(), f
