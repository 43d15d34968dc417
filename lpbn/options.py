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

Built-in methods declare their options once (issue 55): a frozen dataclass deriving from
:class:`MethodOptions`, one field per option made with :func:`opt` (its default, its doc and
its rule), attached to the method function as ``fn.options_class``.  From that one declaration
come the check of ``**options`` (:meth:`MethodOptions.build`, called by :func:`check_options`
before the method runs and by the method itself, which takes ``(cache, control, **options)``),
:func:`lpbn.show_options` and ``lpbn solve --method M --help-options``.  Field metadata rather
than a docstring per field: ``dataclasses.fields`` carries metadata at run time, while a
docstring under an attribute is lost to Python and would need the source parsed.  Methods
registered by users with a plain signature (:func:`lpbn.register_method`) keep the signature
check above.
"""
from __future__ import annotations

import dataclasses
import inspect
import math
import numbers
import re
from dataclasses import dataclass, field
from typing import Any, Callable, NamedTuple

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
    """Raise :class:`InputError` for an option ``method`` cannot take (see module docstring):
    from the method's options dataclass (``fn.options_class``) when it has one, else from its
    signature."""
    cls = getattr(fn, "options_class", None)
    if isinstance(cls, type) and issubclass(cls, MethodOptions):
        cls.build(options, method)
        return
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


class Rule(NamedTuple):
    """A value check of one option: ``test(value)`` is true for a value the method takes, and
    ``expected`` says what that is in the error (``"option k must be <expected>, got ..."``)."""

    test: Callable[[Any], bool]
    expected: str


BOOL = Rule(lambda v: isinstance(v, bool), "true or false")
NONNEG_INT = Rule(lambda v: _is_int(v) and v >= 0, "a non-negative integer")
POSITIVE_INT = Rule(lambda v: _is_int(v) and v >= 1, "a positive integer")
NONNEG = Rule(lambda v: _is_real(v) and v >= 0, "a non-negative number")
STRING = Rule(lambda v: isinstance(v, str), "a string")
SEED = NONNEG_INT
THREADS = Rule(NONNEG_INT.test, "a non-negative integer (0: every core)")
#: a size string ("512M") is parsed by the method (:func:`parse_memory`)
MEMORY = Rule(lambda v: isinstance(v, str) or (_is_real(v) and v > 0),
              "a positive number of bytes or a size such as 4G")
#: no check here: the value is an object (a DAG, a function, a dict) the method checks itself
ANY = Rule(lambda v: True, "anything")


def choices(*values: Any) -> Rule:
    """One of ``values`` (compared with its type, so ``True`` is not ``1``)."""
    return Rule(lambda v: any(type(v) is type(c) and v == c for c in values),
                "one of " + ", ".join(map(repr, values)))


def between(lo: int, hi: int) -> Rule:
    """An integer in ``lo..hi``."""
    return Rule(lambda v: _is_int(v) and lo <= v <= hi, f"an integer between {lo} and {hi}")


def either(*rules: Rule) -> Rule:
    """A value any of ``rules`` accepts."""
    return Rule(lambda v: any(r.test(v) for r in rules), " or ".join(r.expected for r in rules))


def _inferred(default: Any) -> Rule:
    """The rule of a field declared without one: its default's type (as for plain signatures)."""
    if isinstance(default, bool):
        return BOOL
    if _is_int(default):
        return NONNEG_INT
    if _is_real(default):
        return NONNEG
    if isinstance(default, str):
        return STRING
    return ANY


def opt(default: Any, doc: str, rule: Rule | None = None) -> Any:
    """A field of a :class:`MethodOptions` dataclass: its default, its doc (shown by
    :func:`lpbn.show_options`) and its :class:`Rule` (inferred from the default when not
    given).  ``None`` is accepted whenever the default is ``None`` (the method's own rule)."""
    return field(default=default, metadata={"doc": doc, "rule": rule or _inferred(default)})


class OptionRow(NamedTuple):
    """One option as :func:`lpbn.show_options` lists it."""

    name: str
    type: str
    default: Any
    doc: str


@dataclass(frozen=True)
class MethodOptions:
    """Base of every built-in method's options dataclass (see the module docstring).

    A subclass is a frozen dataclass whose fields are made with :func:`opt`; it overrides
    :meth:`check` for rules between options.  ``method`` names the method in every error."""

    @classmethod
    def build(cls, options: dict[str, Any], method: str) -> "MethodOptions":
        """The options object for ``options`` (a dict of keyword options), or one
        :class:`InputError` naming ``method``, the option and the value it expects."""
        declared = {f.name: f for f in dataclasses.fields(cls)}
        for key, value in options.items():
            if key in SHARED:
                raise InputError(f"method {method!r}: {key} is an argument of solve (CLI: "
                                 f"--{key.replace('_', '-')}), not a method option")
            f = declared.get(key)
            if f is None:
                known = ", ".join(declared) or "none"
                raise InputError(f"method {method!r} has no option {key!r} (its options: {known})")
            rule = f.metadata.get("rule", ANY)
            if not (value is None and f.default is None) and not rule.test(value):
                raise InputError(f"method {method!r}: option {key} must be {rule.expected}, got {value!r}")
        out = cls(**options)
        out.check(method)
        return out

    def check(self, method: str) -> None:
        """Rules between options (none here); raise :class:`InputError`."""

    def values(self) -> tuple:
        """The options in declaration order (no copy, unlike :func:`dataclasses.astuple`)."""
        return tuple(getattr(self, f.name) for f in dataclasses.fields(self))

    @classmethod
    def rows(cls) -> list[OptionRow]:
        """Every option with its type, default and doc, in declaration order."""
        return [OptionRow(f.name, str(f.type), f.default, f.metadata.get("doc", ""))
                for f in dataclasses.fields(cls)]

    @classmethod
    def fields(cls) -> list[tuple[str, Any, str]]:
        """``(name, default, doc)`` of every option (the older listing)."""
        return [(r.name, r.default, r.doc) for r in cls.rows()]


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
