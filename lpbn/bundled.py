"""Where lpbn's bundled instances and benchmark suites are.

In a checkout they are the repository's ``instances/`` folder beside the package; a wheel ships
the same folder inside the package as ``lpbn/instances/`` (``pyproject.toml``, package-data), so
``lpbn bench smoke`` and the bundled score files work after a plain ``pip install .``.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["instances_dir"]

_PACKAGE = Path(__file__).resolve().parent


def instances_dir() -> Path:
    """The bundled ``instances`` folder: the checkout's, else the installed package's copy."""
    for cand in (_PACKAGE.parent / "instances", _PACKAGE / "instances"):
        if (cand / "suites").is_dir():
            return cand
    return _PACKAGE / "instances"
