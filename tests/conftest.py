"""Shared fixtures: the bundled instances and, when present, the shared benchmark collection."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
INSTANCES = ROOT / "instances"


def shared_dir() -> Path | None:
    """The shared benchmark collection (``$LPBN_SHARED`` or ``../shared``), or None."""
    env = os.environ.get("LPBN_SHARED")
    cand = Path(env) if env else ROOT.parent / "shared"
    return cand if (cand / "instances" / "KNOWN_OPTIMA.json").exists() else None


@pytest.fixture(scope="session")
def instances() -> Path:
    return INSTANCES


@pytest.fixture(scope="session")
def known_optima() -> dict:
    """instances/KNOWN_OPTIMA.json: exact_dp, gobnilp_bic3 and published optima."""
    return json.loads((INSTANCES / "KNOWN_OPTIMA.json").read_text())


@pytest.fixture(scope="session")
def shared() -> Path:
    """The shared collection; tests that need it are skipped when it is absent."""
    d = shared_dir()
    if d is None:
        pytest.skip("shared benchmark collection not found (set LPBN_SHARED)")
    return d


def pytest_sessionstart(session):
    """Compile every method's kernels once before any test runs (what ``lpbn warmup`` does, on
    every core): a timed solve on a cold install compiles in a child process and may return a
    quick answer instead (lpbn.warmup), which tests of the methods must not get."""
    # subprocesses (`python -m lpbn ...` in a temporary directory) import the lpbn these tests
    # import (the installed wheel in CI, else this checkout): the same code as the in-process
    # tests, and one compile cache
    import lpbn
    home = str(Path(lpbn.__file__).resolve().parent.parent)
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (home, os.environ.get("PYTHONPATH")) if p)
    from lpbn import warmup
    from lpbn.race import cores
    if cores() > 1:
        warmup.warm_all(list(warmup.METHODS), cores())
    warmup.main([])      # anything still cold compiles here, where an error would show
