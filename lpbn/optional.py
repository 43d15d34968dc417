"""Optional dependencies (networkx, pgmpy, matplotlib ...): :func:`import_optional` imports one
or raises :class:`MissingDependencyError` naming the lpbn extra to install.

A core module (it imports only :mod:`lpbn.errors`), so that the result types
(:meth:`lpbn.result.DAG.to_networkx`) can use it without importing :mod:`lpbn.interop`, whose
pgmpy export sits above the fitting (:mod:`lpbn.fit`) that needs the result types.
"""

from __future__ import annotations

import importlib

from .errors import InputError

__all__ = ["import_optional", "MissingDependencyError"]


class MissingDependencyError(InputError):
    """An optional package that this feature needs is not installed."""


def import_optional(module: str, extra: str, what: str | None = None):
    """Import ``module`` or raise :class:`MissingDependencyError` naming the lpbn extra."""
    try:
        return importlib.import_module(module)
    except ImportError:
        top = module.split(".")[0]
        raise MissingDependencyError(
            f"{what or 'this feature'} needs the optional package {top}: "
            f"pip install {top} (or pip install \"lpbn[{extra}]\")") from None
