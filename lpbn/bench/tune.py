"""``lpbn bench --tune NAME=VALUE``: one tuning constant of :mod:`lpbn.tuning` changed in every run.

The harness checks each override here (a known name, a value of the constant's own type) and
passes them in every worker job; the worker (:func:`lpbn.bench.worker.apply_tuning`) loads
lpbn/tuning.py on its own and sets the values *before* the rest of lpbn is imported, so the
modules that bind a constant at import time (``from .tuning import X``) see the override as
surely as the ones that read it at call time.  Runs record the overrides (summary.md and
results.json.gz), so a sweep's runs (``tools/sweep.py``) say what they changed.
"""

from __future__ import annotations

import ast
from typing import Any

from .. import tuning
from ..errors import InputError

#: constants read inside cached numba kernels: numba freezes a global's value into the compiled
#: (and cached) code, so an override would silently not apply; tests/test_tuning.py checks the list
COMPILED = frozenset({"TRANSFORM_BLOCK", "DENSE_CELLS"})


def names() -> list[str]:
    """The tuning constants, in the module's order."""
    return [k for k in vars(tuning) if k.isupper() and not k.startswith("_")]


def _typed(name: str, text: str, current: Any) -> Any:
    try:
        value = ast.literal_eval(text.strip())
    except (ValueError, SyntaxError):
        raise InputError(f"--tune {name}={text}: not a number, bool or tuple literal") from None
    if isinstance(current, tuple):
        if not isinstance(value, tuple) or len(value) != len(current):
            raise InputError(f"--tune {name}={text}: {name} is a tuple of {len(current)} like {current!r}")
        return tuple(_typed(name, repr(v), c) for v, c in zip(value, current))
    if type(current) is float and type(value) is int:
        value = float(value)
    if type(value) is not type(current):
        raise InputError(f"--tune {name}={text}: {name} takes a value of type {type(current).__name__} "
                         f"(now {current!r}), not {type(value).__name__}")
    return value


def parse_tune(items: list[str] | None) -> dict[str, Any]:
    """``["NAME=VALUE", ...]`` -> ``{NAME: value}``, each value of its constant's type; an
    unknown name, a malformed item or a value of another type is an :class:`InputError`."""
    out: dict[str, Any] = {}
    known = set(names())
    for item in items or []:
        name, sep, text = item.partition("=")
        name = name.strip()
        if not sep or not name:
            raise InputError(f"--tune {item}: expected NAME=VALUE")
        if name not in known:
            raise InputError(f"--tune {item}: no tuning constant {name} in lpbn/tuning.py")
        if name in COMPILED:
            raise InputError(f"--tune {item}: {name} is compiled into cached numba kernels; "
                             "change it in lpbn/tuning.py instead")
        out[name] = _typed(name, text, getattr(tuning, name))
    return out


def describe(tune: dict[str, Any] | None) -> str:
    """``NAME=VALUE, ...`` (or "" without overrides), for the report."""
    return ", ".join(f"{k}={v!r}" for k, v in (tune or {}).items())
