"""Where a bench run's numbers come from: the machine, Python and lpbn's commit, taken when the
run starts (a commit made while a long run is under way must not be credited with its rows)."""

from __future__ import annotations

import os
import platform
import subprocess
from pathlib import Path


def machine_line() -> str:
    """System, CPUs, Python, lpbn's version and commit (with "+ uncommitted changes" when
    lpbn's sources differ from it)."""
    cpus = os.cpu_count()
    return (f"{platform.system()} {platform.machine()}, {cpus} CPUs, Python "
            f"{platform.python_version()}, lpbn {_version()}{_git()}")


def _version() -> str:
    from .. import __version__
    return __version__


def _git() -> str:
    root = Path(__file__).resolve().parent.parent.parent
    try:
        out = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return ""
    if out.returncode != 0 or not out.stdout.strip():
        return ""
    return f" (git {out.stdout.strip()}{' + uncommitted changes' if _dirty(root) else ''})"


def _dirty(root: Path) -> bool:
    """Whether lpbn's own sources differ from the commit (results then say so)."""
    try:
        out = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no",
                              "--", "lpbn"], capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return False
    return out.returncode == 0 and bool(out.stdout.strip())
