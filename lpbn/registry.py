"""The method registry: name -> the function behind ``lpbn.solve(cache, method=name)``.

It sits above the methods and below the portfolio and the front door (issue 55's layers: core
-> LP layer -> methods -> registry -> portfolio -> front door): the methods are named here as
``"module:function"`` strings and imported on first use, so importing the registry loads no
method, and no method imports the registry.  A method that wants another's help asks through
its :class:`lpbn.control.SolveControl` (:meth:`~lpbn.control.SolveControl.helper`,
:meth:`~lpbn.control.SolveControl.borrow`), which the front door wires to this registry.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import Any, Callable

from .errors import InputError
from .options import method_options as signature_options
from .result import SolveResult

#: name -> "module:function" (imported lazily) or a callable.
_METHODS: dict[str, str | Callable[..., SolveResult]] = {
    "dp": "lpbn.dp:solve_dp",
    "brute": "lpbn.brute:solve_brute",
    "dual": "lpbn.dual.solver:solve_dual",
    "highs": "lpbn.highs.ilp:solve_highs",
    "pulp-cbc": "lpbn.highs.pulp_model:solve_pulp_cbc",
    "bfbnb": "lpbn.bfbnb.search:solve_bfbnb",
    "obs": "lpbn.certified:solve_obs",
    "asobs": "lpbn.certified:solve_asobs",
    "race": "lpbn.race:solve_race",
}
#: the methods lpbn ships (``available_methods`` also lists those registered since)
BUILTIN_METHODS = tuple(_METHODS)


def register_method(name: str, func: str | Callable[..., SolveResult]) -> None:
    """Register (or replace) a method under ``name``: a callable or ``"module:function"``."""
    _METHODS[name] = func


def method_function(name: str) -> Callable[..., SolveResult]:
    """The function behind method ``name`` (``fn(cache, control, **options)``), imported on
    first use; :class:`InputError` for an unknown or unavailable method."""
    target = _METHODS.get(name)
    if target is None:
        raise InputError(f"unknown method {name!r}; choose from {', '.join(available_methods())}")
    if callable(target):
        return target
    module, _, func = target.partition(":")
    try:
        mod = importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.startswith("lpbn"):
            raise InputError(f"method {name!r} is not available in this build of lpbn") from None
        raise
    return getattr(mod, func)


def helper(name: str) -> Callable[..., SolveResult] | None:
    """:attr:`lpbn.control.SolveControl.helpers`: method ``name``'s function, or None when
    it is not available in this build (the method asking then does without it)."""
    try:
        return method_function(name)
    except InputError:
        return None


def method_options(method: str) -> list[tuple[str, str, Any, str]]:
    """``(name, type, default, doc)`` of every option of ``method``: from the method's options
    dataclass (``fn.options_class``, a :class:`lpbn.options.MethodOptions`) when it has one,
    else from its signature (no type or doc).  ``"k_best"``: the options of
    ``solve(..., k_best=K)`` (:class:`lpbn.kbest.api.KBestOptions`)."""
    if method == "k_best":
        from .kbest.api import KBestOptions
        return [tuple(row) for row in KBestOptions.rows()]
    fn = method_function(method)
    cls = getattr(fn, "options_class", None)
    if cls is not None:
        return [tuple(row) for row in cls.rows()]
    named, _ = signature_options(fn)
    return [(name, "", default, "") for name, default in named.items()]


def show_options(method: str | None = None, disp: bool = True) -> str | None:
    """Every option of ``method`` (or of every available method) with its type, default and
    doc, like ``scipy.optimize.show_options``; printed, or returned as a string with
    ``disp=False``.  ``"k_best"`` lists the options of ``solve(..., k_best=K)``.  The limits
    every method shares (``time_limit``, ``gap_limit``, ``node_limit``, ``callback``,
    ``progress``) are arguments of :func:`lpbn.solve`, not options."""
    import textwrap
    names = [method] if method is not None else [*available_methods(), "k_best"]
    out = []
    for name in names:
        out.append(name)
        out.append("=" * len(name))
        rows = method_options(name)
        if not rows:
            out.append("(no options)")
        for opt, kind, default, doc in rows:
            out.append(f"{opt} : {kind + ', ' if kind else ''}default {default!r}")
            if doc:
                out.extend(textwrap.wrap(doc, 88, initial_indent="    ", subsequent_indent="    "))
        out.append("")
    text = "\n".join(out)
    if disp:
        print(text)
        return None
    return text


def registered_methods() -> list[str]:
    """Names of every registered method (importable or not), in registration order."""
    return list(_METHODS)


def available_methods() -> list[str]:
    """Names of registered methods whose implementation can be imported."""
    names = []
    for name, target in _METHODS.items():
        if callable(target):
            names.append(name)
            continue
        module = target.partition(":")[0]
        if importlib.util.find_spec(module.split(".")[0]) is None:
            continue
        try:
            if importlib.util.find_spec(module) is not None:
                names.append(name)
        except ModuleNotFoundError:
            pass
    return names
