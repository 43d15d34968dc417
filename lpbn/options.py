"""Checking a method's options before it runs: one clear error for a bad name or value.

``solve(cache, method, **options)`` passes options to the method's function.  Before it does,
:func:`check_options` compares them with that function's signature, so a typo or a value of
the wrong type is an :class:`~lpbn.errors.InputError` naming the option (CLI exit 2), not a
``TypeError`` from deep inside a solver:

* a name the method does not take (when it takes no catch-all ``**options``) is refused,
  with the names it does take;
* the limits every method shares (``time_limit``, ...) are arguments of ``solve``, not options;
* a value must match its default's type: a bool for a bool, an integer for an integer (never
  a bool), a finite real number for a float, a string for a string; numbers must be >= 0;
* ``seed`` and ``threads`` are non-negative integers (``threads`` 0 or None: every core) and
  ``memory_limit`` a positive number of bytes, for every method (also those that forward
  their options, such as ``auto`` and ``asobs``), or a size string such as ``"512M"`` for
  the methods that parse one.  These are checked here, whatever the cache, because some
  methods use them only on large caches (``dp``'s threads run from 22 variables): a bad
  value must not pass on a small cache and fail on a large one (issue 56).
"""
from __future__ import annotations

import inspect
import math
import numbers
import re
from typing import Any, Callable

from .errors import InputError

#: arguments of solve() itself; passing them as options is a usage mistake
SHARED = ("time_limit", "gap_limit", "node_limit", "callback", "progress")


def method_options(fn: Callable) -> tuple[dict[str, Any], bool]:
    """The options a method function takes (name -> default) and whether it takes any other
    keyword (a ``**`` parameter); the first two parameters (cache, control) are not options."""
    params = list(inspect.signature(fn).parameters.values())[2:]
    named = {p.name: p.default for p in params
             if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    return named, any(p.kind == p.VAR_KEYWORD for p in params)


def check_options(method: str, fn: Callable, options: dict[str, Any]) -> None:
    """Raise :class:`InputError` for an option ``method`` cannot take (see module docstring)."""
    named, catch_all = method_options(fn)
    for key, value in options.items():
        if key in SHARED:
            raise InputError(f"method {method!r}: {key} is an argument of solve (CLI: --{key.replace('_', '-')}), "
                             "not a method option")
        if key not in named and not catch_all:
            known = ", ".join(sorted(named)) or "none"
            raise InputError(f"method {method!r} has no option {key!r} (its options: {known})")
        _check_value(method, key, value, named.get(key, inspect.Parameter.empty))


def _check_value(method: str, key: str, value: Any, default: Any) -> None:
    def bad(what: str) -> InputError:
        return InputError(f"method {method!r}: option {key} must be {what}, got {value!r}")

    if key in ("seed", "threads"):
        if value is not None and not (_is_int(value) and value >= 0):
            raise bad("a non-negative integer" + (" (0: every core)" if key == "threads" else ""))
        return
    if key == "memory_limit":     # a size string ("512M") is parsed by the method
        if value is not None and not isinstance(value, str) and not (_is_real(value) and value > 0):
            raise bad("a positive number of bytes")
        return
    if default is inspect.Parameter.empty or default is None:
        return      # no default to compare with: the method checks it
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise bad("true or false")
    elif isinstance(default, numbers.Integral):
        if not (_is_int(value) and value >= 0):
            raise bad("a non-negative integer")
    elif isinstance(default, numbers.Real):
        if not (_is_real(value) and value >= 0):
            raise bad("a non-negative number")
    elif isinstance(default, str) and not isinstance(value, str):
        raise bad("a string")


def _is_int(v: Any) -> bool:
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def _is_real(v: Any) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, bool) and math.isfinite(float(v))


def parse_memory(value: Any) -> int:
    """Bytes from an int/float or a string such as ``"512M"``, ``"4GiB"``, ``"100k"``."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if not (value > 0 and math.isfinite(value)):
            raise InputError(f"memory_limit must be a positive number of bytes, got {value!r}")
        return int(value)
    if isinstance(value, str):
        m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([kmgt]?)(i?b)?\s*", value.lower())
        if m:
            scale = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}[m.group(2)]
            out = int(float(m.group(1)) * scale)
            if out > 0:
                return out
    raise InputError(f"memory_limit must be a positive size such as 4G or 512M, got {value!r}")
