"""Structural constraints (background knowledge) honoured by every method.

A :class:`Constraints` names, by variable *name*:

* ``forbid`` / ``require`` -- arcs ``parent -> child`` that must not / must be in the DAG;
* ``forbid_adjacent`` / ``require_adjacent`` -- pairs that must not / must be joined by an arc
  (either direction);
* ``tiers`` -- an ordered list of groups: no arc from a later tier to an earlier one (arcs
  within a tier and from earlier to later tiers are allowed; variables in no tier are free);
* ``max_parents`` -- per-variable in-degree limits (key ``"*"``: every variable);
* ``no_parents`` / ``no_children`` -- variables that must be roots / sinks.

How they are enforced
---------------------
Every constraint but required adjacency is applied by **pruning the cache**
(:meth:`Constraints.apply`, vectorised over the CSR arrays): a candidate parent set of ``v`` is
dropped when it contains a forbidden parent (forbidden arcs, forbidden adjacency both ways, a
parent in a later tier, a parent that may have no children), when ``v`` may have no parents
and the set is not empty, when it exceeds ``v``'s in-degree limit, or when it lacks one of
``v``'s required parents.  The DAGs built from the pruned cache are exactly the DAGs of the
original cache that satisfy those constraints, so every method -- whatever it assumes -- solves
the constrained problem; subset-dominance pruning stays exact on the pruned cache (a kept
subset of a kept set contains the same required parents).

Required adjacency ``u - v`` is not a property of one family.  :func:`solve_constrained`
solves it exactly by branching: for k required adjacencies it solves the (at most) 2^k
problems in which each is oriented one way (``u -> v`` or ``v -> u`` required), which
partition the feasible DAGs, and keeps the best; k > :data:`MAX_ADJACENCY_BRANCHES` is refused.

Contradictions
--------------
Malformed constraints -- a syntax error, an unknown variable, a self-arc, a variable in two
tiers, a negative in-degree limit -- are an :class:`~lpbn.errors.InputError` (one line; the CLI
exits 2).  Well-formed constraints that no DAG satisfies -- an arc both required and forbidden
(directly, by adjacency, tiers, ``no_parents``/``no_children`` or an in-degree limit), required
arcs forming a directed cycle, or a variable left without any candidate parent set, or
candidates from which no DAG can be built -- raise :class:`InfeasibleConstraints` from
:meth:`Constraints.apply`; :func:`lpbn.solve` turns it into a result with status
``infeasible`` and the reason in ``message``.

Caveat for score files: a required arc ``u -> v`` keeps only ``v``'s candidates that contain
``u``.  A cache pruned by subset dominance (every GOBNILP, BLIP or ``lpbn score`` file) may lack
the best such sets -- they were dominated by subsets without ``u`` -- so the optimum is then
optimal over the file's sets only.  ``lpbn score --require`` / :func:`lpbn.score_data` with
``constraints`` score the sets a required arc needs (see :mod:`lpbn.scoring.constrained`), so
the cache it writes holds a constrained optimum over all DAGs.
"""

from __future__ import annotations

import itertools
import math
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

import numpy as np

from . import signals
from .errors import InputError, LocatedError
from .result import DAG

__all__ = ["Constraints", "InfeasibleConstraints", "ConstraintFileError", "solve_constrained",
           "MAX_ADJACENCY_BRANCHES"]

#: required adjacencies are solved by branching over their 2^k orientations; more are refused
MAX_ADJACENCY_BRANCHES = 8

FIELDS = ("forbid", "require", "forbid_adjacent", "require_adjacent", "tiers", "max_parents",
          "no_parents", "no_children")


class InfeasibleConstraints(InputError):
    """No DAG satisfies the constraints (with the cache's candidates); the message says why."""


class ConstraintFileError(LocatedError):
    """A constraints file (TOML or GOBNILP lines) is malformed or uses unsupported syntax."""


Arc = tuple[str, str]


@dataclass(frozen=True)
class Constraints:
    """Structural constraints by variable name (see the module docstring).

    Arcs are ``(parent, child)`` pairs; adjacencies unordered pairs.  Build one directly,
    from a file (:meth:`load`, :meth:`from_toml`, :meth:`from_gobnilp`), from a dict
    (:meth:`from_dict`, the TOML layout) or from arc strings (:meth:`parse_arc`: ``"A->B"`` or
    ``"B<-A"``).  Combine with ``+``.
    """

    forbid: tuple[Arc, ...] = ()
    require: tuple[Arc, ...] = ()
    forbid_adjacent: tuple[Arc, ...] = ()
    require_adjacent: tuple[Arc, ...] = ()
    tiers: tuple[tuple[str, ...], ...] = ()
    max_parents: Mapping[str, int] = field(default_factory=dict)
    no_parents: tuple[str, ...] = ()
    no_children: tuple[str, ...] = ()
    #: where each item came from ("file:line", "--forbid"), for messages
    origin: Mapping[tuple, str] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self):
        put = object.__setattr__
        for name in ("forbid", "require", "forbid_adjacent", "require_adjacent"):
            items = []
            for item in getattr(self, name):
                a, b = _two_names(item, f"{name} item {item!r}")
                if a == b:
                    what = "self-arc" if name in ("forbid", "require") else "self-adjacency"
                    raise InputError(f"{self._where((name, (a, b)))}{what} {a!r} in {name}")
                items.append((a, b))
            put(self, name, tuple(dict.fromkeys(items)))
        tiers = []
        seen: dict[str, int] = {}
        for t, tier in enumerate(self.tiers):
            if isinstance(tier, str) or not isinstance(tier, Iterable):
                raise InputError(f"{self._where(('tiers',))}tiers must be a list of lists of variable names, "
                                 f"got {tier!r}")
            names = tuple(_name(v, "tiers") for v in tier)
            for v in names:
                if v in seen and seen[v] != t:
                    raise InputError(f"{self._where(('tiers',))}variable {v!r} is in tiers {seen[v] + 1} and {t + 1}")
                seen[v] = t
            tiers.append(tuple(dict.fromkeys(names)))
        put(self, "tiers", tuple(tiers))
        if not isinstance(self.max_parents, Mapping):
            raise InputError(f"{self._where(('max_parents',))}max_parents must be a table "
                             f"{{variable = limit}}, got {self.max_parents!r}")
        mp = {}
        for v, k in self.max_parents.items():
            if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 0:
                raise InputError(f"{self._where(('max_parents', v))}max_parents of {v!r} must be a "
                                 f"non-negative integer, got {k!r}")
            mp[_name(v, "max_parents")] = int(k)
        put(self, "max_parents", mp)
        for name in ("no_parents", "no_children"):
            val = getattr(self, name)
            if isinstance(val, str):
                val = (val,)
            put(self, name, tuple(dict.fromkeys(_name(v, name) for v in val)))
        put(self, "origin", dict(self.origin))

    # ------------------------------------------------------------------ construction
    @classmethod
    def parse_arc(cls, text: str, where: str = "") -> Arc:
        """``"A->B"`` or ``"B<-A"`` -> ``("A", "B")`` (parent, child); names are stripped."""
        return _parse_arc(text, where)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], where: str = "") -> "Constraints":
        """The TOML layout as a dict (see :meth:`from_toml`); unknown keys are refused."""
        if not isinstance(d, Mapping):
            raise InputError(f"{where + ': ' if where else ''}constraints must be a table, got {d!r}")
        unknown = sorted(set(d) - set(FIELDS))
        if unknown:
            raise ConstraintFileError(f"unknown key {unknown[0]!r} (keys: {', '.join(FIELDS)})", where or None)
        kw: dict[str, Any] = {}
        origin: dict[tuple, str] = {}
        tag = where or "constraints"
        arc, pair = (_parse_arc, "an arc 'A->B', 'B<-A' or [parent, child]"), \
            (_parse_pair, "an adjacency 'A-B' or [A, B]")
        for key, (parse, what) in (("forbid", arc), ("require", arc),
                                   ("forbid_adjacent", pair), ("require_adjacent", pair)):
            items = []
            for x in _as_list(d.get(key, []), key, where):
                item = parse(x, f"{tag} [{key}]") if isinstance(x, str) else \
                    _two_names(x, f"{tag} [{key}]", what)
                items.append(item)
                origin[(key, item)] = f"{tag} [{key}]"
            kw[key] = tuple(items)
        kw["tiers"] = tuple(_as_list(d.get("tiers", []), "tiers", where))
        mp = d.get("max_parents", {})
        if isinstance(mp, (int, np.integer)) and not isinstance(mp, bool):
            mp = {"*": int(mp)}
        kw["max_parents"] = mp
        for key in ("no_parents", "no_children"):
            kw[key] = tuple(_as_list(d.get(key, []), key, where))
        for key in ("tiers", "max_parents", "no_parents", "no_children"):
            origin[(key,)] = f"{tag} [{key}]"
        return cls(**kw, origin=origin)

    @classmethod
    def from_toml(cls, path: str | os.PathLike) -> "Constraints":
        """Read a TOML constraints file::

            forbid = ["A->B", "D<-C", ["E", "F"]]   # arcs: "parent->child", "child<-parent" or [parent, child]
            require = ["C->D"]
            forbid_adjacent = ["A-B"]               # pairs: "A-B" or ["A", "B"]
            require_adjacent = ["A-C"]
            tiers = [["A", "B"], ["C"], ["D", "E"]] # no arc from a later tier to an earlier one
            max_parents = {X = 2, "*" = 4}          # per variable; "*" = every variable (or max_parents = 4)
            no_parents = ["A"]                      # roots
            no_children = ["E"]                     # sinks

        Names containing ``-``, ``<`` or ``>`` must use the list forms.
        """
        import tomllib
        p = str(path)
        try:
            with open(p, "rb") as fh:
                data = tomllib.load(fh)
        except FileNotFoundError:
            raise InputError(f"{p}: no such constraints file") from None
        except OSError as exc:
            raise InputError(f"{p}: cannot read: {exc.strerror or exc}") from None
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ConstraintFileError(f"not valid TOML: {exc}", p) from None
        return cls.from_dict(data, p)

    @classmethod
    def from_gobnilp(cls, path: str | os.PathLike) -> "Constraints":
        """Read a GOBNILP DAG-constraints file (``gobnilp/dagconstraintsfile``), one per line:

        ``A<-B`` (arc B -> A required), ``~A<-B`` (forbidden), ``A-B`` (adjacency required),
        ``~A-B`` (forbidden), ``A->C<-B`` (immorality: arcs A -> C and B -> C required, A and B
        not adjacent), ``sink A`` / ``sinkA`` (A has no children); ``#`` starts a comment line,
        blank lines are skipped.  Refused with ``file:line``: conditional independence
        (``A_|_B``, ``A_|_B|S``), forbidden immoralities (``~A->C<-B``), ancestral and order
        relations (``A<--B``, ``~A<--B``, ``A<B``) -- none is a pruning of parent sets.
        """
        p = str(path)
        try:
            text = Path(p).read_text(encoding="utf-8")
        except FileNotFoundError:
            raise InputError(f"{p}: no such constraints file") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"{p}: cannot read: {getattr(exc, 'strerror', None) or exc}") from None
        return cls.parse_gobnilp(text, p)

    @classmethod
    def parse_gobnilp(cls, text: str, path: str | None = None) -> "Constraints":
        """:meth:`from_gobnilp` on a string."""
        kw: dict[str, list] = {k: [] for k in ("forbid", "require", "forbid_adjacent", "require_adjacent",
                                                 "no_children")}
        origin: dict[tuple, str] = {}

        def add(key: str, item, ln: int) -> None:
            kw[key].append(item)
            origin.setdefault((key, item), f"{path or '<constraints>'}:{ln}")

        for ln, raw in enumerate(text.splitlines(), 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            m = _GOBNILP_LINE.fullmatch(line)
            kind = next((k for k, v in (m.groupdict() if m else {}).items() if v is not None), None)
            g = [s.strip() for s in m.groups() if s is not None] if m else []
            names = g[1:] if kind else []
            if kind in (None, "ci", "ci_given", "no_imm", "anc", "no_anc", "order") or any(not x for x in names):
                what = {"ci": "a conditional independence statement", "ci_given": "a conditional independence "
                        "statement", "no_imm": "a forbidden immorality", "anc": "an ancestral (partial order) "
                        "relation", "no_anc": "a forbidden ancestral relation", "order": "a total-order relation"
                        }.get(kind or "", "not a GOBNILP arc or adjacency constraint")
                hint = " (lpbn applies arc, adjacency and sink constraints only)" if kind else \
                    " (expected A<-B, ~A<-B, A-B, ~A-B, A->C<-B or sink A)"
                raise ConstraintFileError(f"{line!r}: {what}{hint}", path or "<constraints>", ln)
            if kind == "adj":
                add("require_adjacent", (names[0], names[1]), ln)
            elif kind == "no_adj":
                add("forbid_adjacent", (names[0], names[1]), ln)
            elif kind == "arc":          # A<-B: B is a parent of A
                add("require", (names[1], names[0]), ln)
            elif kind == "no_arc":
                add("forbid", (names[1], names[0]), ln)
            elif kind == "imm":          # A->C<-B
                a, c, b = names
                add("require", (a, c), ln)
                add("require", (b, c), ln)
                add("forbid_adjacent", (a, b), ln)
            elif kind == "sink":
                add("no_children", names[0], ln)
        return cls(**{k: tuple(v) for k, v in kw.items()}, origin=origin)

    @classmethod
    def load(cls, path: str | os.PathLike) -> "Constraints":
        """:meth:`from_toml` for ``*.toml``, else :meth:`from_gobnilp`."""
        return cls.from_toml(path) if str(path).lower().endswith(".toml") else cls.from_gobnilp(path)

    @classmethod
    def coerce(cls, value: Any) -> "Constraints":
        """A Constraints, a dict (TOML layout) or a path -> Constraints."""
        if isinstance(value, Constraints):
            return value
        if isinstance(value, Mapping):
            return cls.from_dict(value)
        if isinstance(value, (str, os.PathLike)):
            return cls.load(value)
        raise InputError(f"constraints must be a Constraints, a dict or a file path, got {type(value).__name__}")

    def __add__(self, other: "Constraints") -> "Constraints":
        if not isinstance(other, Constraints):
            return NotImplemented
        mp = dict(self.max_parents)
        for v, k in other.max_parents.items():
            mp[v] = min(k, mp.get(v, k))
        if self.tiers and other.tiers and self.tiers != other.tiers:
            raise InputError("tiers are given twice (in two constraint sources); give them once")
        return Constraints(
            forbid=self.forbid + other.forbid, require=self.require + other.require,
            forbid_adjacent=self.forbid_adjacent + other.forbid_adjacent,
            require_adjacent=self.require_adjacent + other.require_adjacent,
            tiers=self.tiers or other.tiers, max_parents=mp, no_parents=self.no_parents + other.no_parents,
            no_children=self.no_children + other.no_children, origin={**other.origin, **self.origin})

    def __bool__(self) -> bool:
        return any(bool(getattr(self, k)) for k in FIELDS)

    def to_dict(self) -> dict[str, Any]:
        """The non-empty fields in the TOML layout (arcs and pairs as ``[a, b]`` lists);
        :meth:`from_dict` reads it back."""
        out: dict[str, Any] = {}
        for k in FIELDS:
            v = getattr(self, k)
            if not v:
                continue
            if k == "max_parents":
                out[k] = dict(v)
            elif k in ("no_parents", "no_children"):
                out[k] = list(v)
            else:
                out[k] = [list(x) for x in v]
        return out

    def describe(self) -> str:
        """One line: counts of each kind (for progress lines)."""
        parts = [f"{len(getattr(self, k))} {k.replace('_', ' ')}" for k in FIELDS if getattr(self, k)]
        return ", ".join(parts) or "none"

    def _where(self, key: tuple) -> str:
        w = self.origin.get(key)
        return f"{w}: " if w else ""

    # ------------------------------------------------------------------ against a cache
    def resolve(self, names) -> "_Resolved":
        """Indices over ``names``; unknown names are an InputError, contradictions
        :class:`InfeasibleConstraints` (see the module docstring)."""
        return _Resolved(self, tuple(names))

    def check_names(self, names) -> None:
        """InputError for unknown names (and other malformed items); contradictions are left to
        :meth:`apply` / :func:`solve_constrained` (status ``infeasible``)."""
        try:
            self.resolve(names)
        except InfeasibleConstraints:
            pass

    def branches(self) -> list["Constraints"]:
        """The constraints with every required adjacency oriented, one per orientation pattern
        (pairs already oriented by a required arc need no branch): their feasible DAGs partition
        this one's.  More than :data:`MAX_ADJACENCY_BRANCHES` adjacencies to branch on are refused."""
        req = set(self.require)
        pairs = []
        for a, b in self.require_adjacent:
            if (a, b) in req or (b, a) in req or (a, b) in pairs or (b, a) in pairs:
                continue
            pairs.append((a, b))
        if len(pairs) > MAX_ADJACENCY_BRANCHES:
            raise InputError(f"{len(pairs)} required adjacencies: lpbn solves them by branching over their "
                             f"2^k orientations and refuses k > {MAX_ADJACENCY_BRANCHES}; give some as "
                             "required arcs instead")
        out = []
        for flips in itertools.product((False, True), repeat=len(pairs)):
            arcs = tuple((b, a) if f else (a, b) for (a, b), f in zip(pairs, flips))
            origin = dict(self.origin)
            for (a, b), arc in zip(pairs, arcs):
                origin[("require", arc)] = self.origin.get(("require_adjacent", (a, b)), "required adjacency") \
                    + f" (orientation {arc[0]}->{arc[1]} of required adjacency {a}-{b})"
            out.append(Constraints(self.forbid, self.require + arcs, self.forbid_adjacent, (), self.tiers,
                                   self.max_parents, self.no_parents, self.no_children, origin))
        return out

    def apply(self, cache, *, skip_adjacent: bool = False):
        """The cache pruned to the candidates the constraints allow (see the module docstring),
        with ``meta["constraints"]`` (this, :meth:`to_dict`) and ``meta["constraints_removed"]``.

        Raises :class:`InfeasibleConstraints` when no DAG is left, and InputError when
        required adjacencies are present (they need :func:`solve_constrained`) unless
        ``skip_adjacent`` (they are then left to the solve)."""
        from .cache import ScoreCache, gather_csr, greedy_order
        r = self.resolve(cache.names)
        if r.require_adjacent and not skip_adjacent:
            raise InputError("required adjacency cannot be applied by pruning one cache: solve with "
                             "lpbn.solve(cache, method, constraints=...) (it branches over the orientations)")
        keep = r.keep_mask(cache)
        n = cache.n
        counts = np.bincount(cache.family[keep], minlength=n)
        empty = np.flatnonzero(counts == 0)
        if len(empty):
            v = int(empty[0])
            need = sorted(cache.names[p] for p in r.required_parents(v))
            why = f" (each must contain {', '.join(need)})" if need else ""
            more = f"; also {', '.join(cache.names[int(i)] for i in empty[1:4])}" + (" ..." if len(empty) > 4 else "") \
                if len(empty) > 1 else ""
            raise InfeasibleConstraints(f"no candidate parent set of {cache.names[v]} satisfies the constraints"
                                        f"{why}: the cache has {int(cache.counts()[v])} for it{more}")
        idx = np.flatnonzero(keep)
        offsets = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        ptr = np.zeros(len(idx) + 1, dtype=np.int64)
        np.cumsum(cache.sizes[idx], out=ptr[1:])
        items = gather_csr(cache.pset_ptr, cache.pset_items, idx.astype(np.int64), ptr)
        meta = dict(cache.meta)
        meta["constraints"] = self.to_dict()
        meta["constraints_removed"] = int(meta.get("constraints_removed", 0)) + int(cache.m - len(idx))
        out = ScoreCache(cache.names, offsets, cache.scores[idx], ptr, items, meta=meta, source=cache.source,
                         check_feasible=False)
        placed = greedy_order(n, out.offsets, out.pset_ptr, out.pset_items)
        if not placed.all():
            stuck = [cache.names[i] for i in np.flatnonzero(~placed)]
            raise InfeasibleConstraints(
                "no DAG satisfies the constraints: every allowed candidate parent set of "
                f"{', '.join(stuck[:5])}{' ...' if len(stuck) > 5 else ''} needs a variable from that same group")
        return out


class _Resolved:
    """Constraints as index arrays over a cache's names (built by :meth:`Constraints.resolve`)."""

    def __init__(self, c: Constraints, names: tuple[str, ...]):
        self.c = c
        self.names = names
        n = self.n = len(names)
        index = {v: i for i, v in enumerate(names)}

        def ix(v: str, key: tuple) -> int:
            i = index.get(v)
            if i is None:
                close = [x for x in names if x.lower() == v.lower()][:1]
                hint = f" (did you mean {close[0]!r}?)" if close else \
                    (f" (variables: {', '.join(names[:8])}{' ...' if n > 8 else ''})")
                raise InputError(f"{c._where(key)}unknown variable {v!r}{hint}")
            return i

        self.forbid = [(ix(a, ("forbid", (a, b))), ix(b, ("forbid", (a, b)))) for a, b in c.forbid]
        self.require = [(ix(a, ("require", (a, b))), ix(b, ("require", (a, b)))) for a, b in c.require]
        self.forbid_adjacent = [(ix(a, ("forbid_adjacent", (a, b))), ix(b, ("forbid_adjacent", (a, b))))
                                for a, b in c.forbid_adjacent]
        self.require_adjacent = [(ix(a, ("require_adjacent", (a, b))), ix(b, ("require_adjacent", (a, b))))
                                 for a, b in c.require_adjacent]
        self.tier = np.full(n, -1, dtype=np.int64)
        for t, tier in enumerate(c.tiers):
            for v in tier:
                self.tier[ix(v, ("tiers",))] = t
        self.maxp = np.full(n, n, dtype=np.int64)
        for v, k in c.max_parents.items():
            if v == "*":
                self.maxp = np.minimum(self.maxp, k)
            else:
                i = ix(v, ("max_parents",))
                self.maxp[i] = min(self.maxp[i], k)
        self.no_parents = np.zeros(n, dtype=bool)
        for v in c.no_parents:
            self.no_parents[ix(v, ("no_parents",))] = True
        self.no_children = np.zeros(n, dtype=bool)
        for v in c.no_children:
            self.no_children[ix(v, ("no_children",))] = True
        fk = [b * n + a for a, b in self.forbid]
        fk += [b * n + a for a, b in self.forbid_adjacent] + [a * n + b for a, b in self.forbid_adjacent]
        self.forbid_keys = np.unique(np.array(fk, dtype=np.int64))
        self.require_keys = np.unique(np.array([b * n + a for a, b in self.require], dtype=np.int64))
        self.nreq = np.bincount(self.require_keys // n, minlength=n).astype(np.int64) if n else np.zeros(0, np.int64)
        self._check()

    def required_parents(self, v: int) -> list[int]:
        return [int(k % self.n) for k in self.require_keys if k // self.n == v]

    def forbidden_arc(self, p: int, v: int) -> str | None:
        """Why ``p -> v`` is forbidden (or None): one clause for messages."""
        nm = self.names
        if self.n and np.isin(v * self.n + p, self.forbid_keys):
            adj = (min(p, v), max(p, v))
            if any((min(a, b), max(a, b)) == adj for a, b in self.forbid_adjacent):
                return f"{nm[p]} and {nm[v]} may not be adjacent"
            return f"arc {nm[p]}->{nm[v]} is forbidden"
        if self.tier[p] >= 0 and self.tier[v] >= 0 and self.tier[p] > self.tier[v]:
            return f"{nm[p]} is in tier {self.tier[p] + 1}, after {nm[v]}'s tier {self.tier[v] + 1}"
        if self.no_parents[v]:
            return f"{nm[v]} may have no parents"
        if self.no_children[p]:
            return f"{nm[p]} may have no children"
        if self.maxp[v] == 0:
            return f"{nm[v]} may have at most 0 parents"
        return None

    def _check(self) -> None:
        """Contradictions among the constraints themselves (no cache needed)."""
        c, nm = self.c, self.names
        for a, b in self.require:
            why = self.forbidden_arc(a, b)
            if why:
                raise InfeasibleConstraints(f"{c._where(('require', (nm[a], nm[b])))}arc {nm[a]}->{nm[b]} is "
                                            f"required but {why}")
        over = np.flatnonzero(self.nreq > self.maxp)
        if len(over):
            v = int(over[0])
            raise InfeasibleConstraints(f"{nm[v]} has {int(self.nreq[v])} required parents but may have at most "
                                        f"{int(self.maxp[v])}")
        for a, b in self.require_adjacent:
            if self.forbidden_arc(a, b) and self.forbidden_arc(b, a):
                raise InfeasibleConstraints(f"{c._where(('require_adjacent', (nm[a], nm[b])))}{nm[a]} and {nm[b]} "
                                            f"must be adjacent but {self.forbidden_arc(a, b)} and "
                                            f"{self.forbidden_arc(b, a)}")
        parents: list[list[int]] = [[] for _ in range(self.n)]
        for a, b in self.require:
            parents[b].append(a)
        cycle = DAG(nm, parents).find_cycle()
        if cycle:
            path = " -> ".join(nm[v] for v in cycle + cycle[:1])
            raise InfeasibleConstraints(f"the required arcs form a directed cycle: {path}")

    def keep_mask(self, cache) -> np.ndarray:
        """Which candidates of ``cache`` the constraints allow (vectorised over the CSR items)."""
        n, m = cache.n, cache.m
        sizes = cache.sizes.astype(np.int64)
        fam = cache.family.astype(np.int64)
        keep = sizes <= self.maxp[fam]
        keep &= ~(self.no_parents[fam] & (sizes > 0))
        if not len(cache.pset_items):
            return keep & (self.nreq[fam] == 0)
        cand = np.repeat(np.arange(m, dtype=np.int64), sizes)
        child = fam[cand]
        par = cache.pset_items.astype(np.int64)
        bad = self.no_children[par]
        if (self.tier >= 0).any():
            tp, tc = self.tier[par], self.tier[child]
            bad |= (tp >= 0) & (tc >= 0) & (tp > tc)
        key = None
        if len(self.forbid_keys):
            key = child * n + par
            bad |= np.isin(key, self.forbid_keys)
        if bad.any():
            keep &= np.bincount(cand[bad], minlength=m) == 0
        if len(self.require_keys):
            key = child * n + par if key is None else key
            hit = np.isin(key, self.require_keys)
            keep &= np.bincount(cand[hit], minlength=m) == self.nreq[fam]
        return keep


# ---------------------------------------------------------------------- parsing helpers
_N = r"([^~<>\-]*)"
_GOBNILP_LINE = re.compile(
    r"(?P<adj>)" + _N + r"-" + _N +                       # A-B
    r"|~(?P<no_adj>)" + _N + r"-" + _N +                  # ~A-B
    r"|(?P<arc>)" + _N + r"<-" + _N +                     # A<-B
    r"|~(?P<no_arc>)" + _N + r"<-" + _N +                 # ~A<-B
    r"|(?P<imm>)" + _N + r"->" + _N + r"<-" + _N +        # A->C<-B
    r"|~(?P<no_imm>)" + _N + r"->" + _N + r"<-" + _N +    # ~A->C<-B
    r"|(?P<anc>)" + _N + r"<--" + _N +                    # A<--B
    r"|~(?P<no_anc>)" + _N + r"<--" + _N +                # ~A<--B
    r"|(?P<ci_given>)([^~<>\-]*?)_\|_([^~<>\-|]*)\|" + _N +  # A_|_B|S
    r"|(?P<ci>)([^~<>\-]*?)_\|_" + _N +                   # A_|_B
    r"|(?P<order>)" + _N + r"<" + _N +                    # A<B
    r"|sink\s*(?P<sink>)(\S+)")                           # sink A


def _name(v: Any, what: str) -> str:
    if not isinstance(v, str) or not v.strip():
        raise InputError(f"{what}: expected a variable name, got {v!r}")
    return v.strip()


def _two_names(x: Any, where: str, expect: str = "two variable names") -> tuple[str, str]:
    if isinstance(x, str) or not isinstance(x, (list, tuple)) or len(x) != 2:
        raise InputError(f"{where}: expected {expect}, got {x!r}")
    return _name(x[0], where), _name(x[1], where)


def _parse_arc(text: Any, where: str = "") -> Arc:
    pre = f"{where}: " if where else ""
    if not isinstance(text, str):
        raise InputError(f"{pre}expected an arc 'A->B' or 'B<-A', got {text!r}")
    if text.count("->") == 1 and "<-" not in text:
        a, b = text.split("->")
    elif text.count("<-") == 1 and "->" not in text:
        b, a = text.split("<-")
    else:
        raise InputError(f"{pre}expected an arc 'A->B' (parent A, child B) or 'B<-A', got {text!r}")
    if not a.strip() or not b.strip():
        raise InputError(f"{pre}expected an arc 'A->B' or 'B<-A', got {text!r}")
    return a.strip(), b.strip()


def _parse_pair(text: str, where: str) -> tuple[str, str]:
    parts = text.split("-")
    if len(parts) != 2 or not parts[0].strip() or not parts[1].strip() or any(c in text for c in "<>"):
        raise InputError(f"{where}: expected an adjacency 'A-B' (use [\"A\", \"B\"] for names with '-'), "
                         f"got {text!r}")
    return parts[0].strip(), parts[1].strip()


def _as_list(x: Any, key: str, where: str) -> list:
    if isinstance(x, str) or not isinstance(x, (list, tuple)):
        raise ConstraintFileError(f"{key} must be a list, got {x!r}", where or None)
    return list(x)


# ---------------------------------------------------------------------- CLI helpers
def add_arguments(p, *, what: str = "the solve") -> None:
    """``--constraints FILE``, ``--forbid ARC``, ``--require ARC`` (repeatable)."""
    p.add_argument("--constraints", action="append", default=[], metavar="FILE",
                   help="structural constraints for " + what + ": a TOML file (forbid, require, forbid_adjacent, "
                        "require_adjacent, tiers, max_parents, no_parents, no_children) or a GOBNILP "
                        "constraints file (A<-B, ~A<-B, A-B, ~A-B); repeatable")
    p.add_argument("--forbid", action="append", default=[], metavar="ARC",
                   help="forbid the arc 'A->B' (or 'B<-A'); repeatable")
    p.add_argument("--require", action="append", default=[], metavar="ARC",
                   help="require the arc 'A->B' (or 'B<-A'); repeatable")


def from_args(args) -> Constraints | None:
    """The constraints of ``--constraints/--forbid/--require``, or None when none is given."""
    out = Constraints()
    for path in getattr(args, "constraints", None) or []:
        out = out + Constraints.load(path)
    forbid = tuple(_parse_arc(a, "--forbid") for a in getattr(args, "forbid", None) or [])
    require = tuple(_parse_arc(a, "--require") for a in getattr(args, "require", None) or [])
    if forbid or require:
        origin = {("forbid", a): "--forbid" for a in forbid}
        origin.update({("require", a): "--require" for a in require})
        out = out + Constraints(forbid=forbid, require=require, origin=origin)
    return out if out else None


# ---------------------------------------------------------------------- solving
def solve_constrained(cache, method: str = "auto", constraints: Any = None, *, solver: Callable[..., Any],
                      prune: bool = True, time_limit: float | None = None, gap_limit: float | None = None,
                      node_limit: int | None = None, callback=None, progress: bool | None = None,
                      **options: Any):
    """``solver`` under ``constraints``: what ``lpbn.solve(..., constraints=...)`` runs, with
    ``solver`` the unconstrained :func:`lpbn.solve` (passed in, so that this core module does
    not import the front door above it).

    Each orientation branch of the required adjacencies (one branch without any) is applied
    to the cache (:meth:`Constraints.apply`), pruned of subset-dominated candidates when
    ``prune`` (exact on a constrained cache) and solved; the best DAG and the largest bound
    over the branches are returned.  The time limit is shared by the branches; node and gap
    limits apply per branch.  ``stats["constraints"]`` says how many candidates the
    constraints removed (``removed``), how many the subset-dominance pruning then removed,
    and the branches.  No DAG -> status ``infeasible`` with the reason in ``message``.
    """
    if not hasattr(cache, "offsets"):
        from .formats import read_scores
        cache = read_scores(cache)
    cons = Constraints.coerce(constraints)
    start = time.perf_counter()
    info: dict[str, Any] = {"given": cons.to_dict(), "candidates_before": cache.m}
    try:
        cons.resolve(cache.names)
    except InfeasibleConstraints as exc:
        return _infeasible(method, start, str(exc), info)
    branches = cons.branches()
    prepared, reasons = _prepare_branches(cache, branches, prune)
    info["branches"] = len(branches)
    if len(branches) > 1:
        info["infeasible_branches"] = len(branches) - len(prepared)
    if not prepared:
        reason = reasons[0] if len(branches) == 1 else \
            f"none of the {len(branches)} orientations of the required adjacencies does; e.g. {reasons[0]}"
        return _infeasible(method, start, reason, info)
    limits = dict(gap_limit=gap_limit, node_limit=node_limit, progress=progress, **options)
    if len(prepared) == 1:
        b, c, after = prepared[0]
        info.update(removed=cache.m - after, pruned_dominated=after - c.m, candidates=c.m)
        res = solver(c, method, time_limit=time_limit, callback=callback, **limits)
        res.stats["constraints"] = info
        res.seconds = time.perf_counter() - start
        return res
    run = _BranchRun(prepared, start, callback)
    signum = run.solve_all(solver, method, time_limit, limits)
    info["orientations"] = [
        {"require": [list(a) for a in b.require[len(cons.require):]], "removed": cache.m - after,
         "candidates": c.m, "status": r.status if r is not None else "not_run",
         "score": (r.score if r is not None and math.isfinite(r.score) else None),
         "upper_bound": (r.upper_bound if r is not None and math.isfinite(r.upper_bound) else None)}
        for (b, c, after), r in zip(prepared, run.done)]
    info["removed"] = min(cache.m - after for _, _, after in prepared)
    res = run.merge(method, signum)
    if res is None:
        return _infeasible(method, start, "no orientation of the required adjacencies admits a DAG", info)
    res.stats["constraints"] = info
    res.trace = run.trace
    res.seconds = time.perf_counter() - start
    return res


def _infeasible(method: str, start: float, reason: str, stats: dict):
    from .result import INFEASIBLE, SolveResult
    return SolveResult(None, -math.inf, -math.inf, INFEASIBLE, method, seconds=time.perf_counter() - start,
                       stats={"constraints": stats}, message=f"the constraints admit no DAG: {reason}")


def _prepare_branches(cache, branches: list[Constraints], prune: bool) -> tuple[list, list[str]]:
    """``(branch, its pruned cache, its candidates before the dominance pruning)`` of every
    feasible branch, and the reasons of the infeasible ones."""
    prepared, reasons = [], []
    for b in branches:
        try:
            c = b.apply(cache)
        except InfeasibleConstraints as exc:
            reasons.append(str(exc))
            continue
        after = c.m
        if prune:
            c = c.prune_dominated()
        prepared.append((b, c, after))
    return prepared, reasons


class _BranchRun:
    """The orientation branches solved one after another under one shared time limit; the
    callback sees the global best and bound (a branch not yet solved counts with its trivial
    bound, the sum of each variable's best unconstrained score, so the bound is valid at every
    moment)."""

    def __init__(self, prepared: list, start: float, callback):
        self.prepared = prepared
        self.start = start
        self.callback = callback
        self.trivial = [float(c.best_unconstrained().sum()) for _, c, _ in prepared]
        self.done: list[Any] = [None] * len(prepared)
        self.trace: list[tuple[float, float, float]] = []
        self.best = -math.inf

    def branch_bound(self, j: int) -> float:
        """Branch j's bound: its answer's, or its trivial bound while unsolved or when its
        method ended in error (a detected fault: its bound is not used)."""
        from .result import ERROR
        r = self.done[j]
        return r.upper_bound if r is not None and r.status != ERROR else self.trivial[j]

    def bound_except(self, k: int) -> float:
        return max([self.branch_bound(j) for j in range(len(self.prepared)) if j != k] + [-math.inf])

    def reporter(self, k: int):
        from .result import relative_gap

        def cb(d: dict) -> None:
            best = max(self.best, d.get("best", -math.inf))
            bound = max(self.bound_except(k), d.get("bound", math.inf))
            now = time.perf_counter() - self.start
            self.trace.append((now, best, bound))
            if self.callback is not None:
                self.callback({**d, "seconds": now, "best": best, "bound": bound,
                               "gap": relative_gap(best, bound), "branch": k})
        return cb

    def solve_all(self, solver, method: str, time_limit: float | None, limits: dict):
        """Solve the branches in turn until done, a signal or an interrupted branch; the
        pending signal number (or None)."""
        with signals.stop_on_signals():
            for k, (_, c, _) in enumerate(self.prepared):
                if signals.pending() is not None:
                    break
                left = None if time_limit is None else max(0.0, time_limit - (time.perf_counter() - self.start))
                r = solver(c, method, time_limit=left, callback=self.reporter(k), **limits)
                self.done[k] = r
                if r.dag is not None:
                    self.best = max(self.best, r.score)
                if r.stats.get("interrupted_by"):
                    break
            return signals.pending()

    def merge(self, method: str, signum):
        """The best branch's DAG with the largest bound over every branch (the branches split
        the DAGs, so the bound is their maximum, not the minimum of :func:`lpbn.portfolio.merge`,
        which combines answers to one problem); a branch unsolved or ended in error (a detected
        fault, whose bound is not used) counts with its trivial bound.  None when every branch
        was infeasible."""
        from .result import INFEASIBLE, INTERRUPTED, OPTIMAL, OPTIMALITY_TOLERANCE, SolveResult, relative_gap
        solved = [r for r in self.done if r is not None]
        with_dag = [r for r in solved if r.dag is not None]
        upper = max(self.branch_bound(j) for j in range(len(self.done)))
        if not with_dag:
            if all(r is not None and r.status == INFEASIBLE for r in self.done):
                return None
            res = SolveResult(None, -math.inf, upper, next(r.status for r in solved if r.status != INFEASIBLE)
                              if solved else INTERRUPTED, method)
        else:
            best = max(with_dag, key=lambda r: r.score)
            res = SolveResult(best.dag, best.score, upper, OPTIMAL, best.method,
                              stats=dict(best.stats), extra=best.extra)
            if relative_gap(res.score, res.upper_bound) > OPTIMALITY_TOLERANCE:
                pending = [r.status for r in solved if r.status != OPTIMAL]
                res.status = pending[0] if pending else (INTERRUPTED if signum is not None else "time_limit")
        interrupted = next((r.stats["interrupted_by"] for r in solved if r.stats.get("interrupted_by")), None)
        if interrupted is None and signum is not None:
            interrupted = signals.signal_name(signum)
        if interrupted:
            res.stats["interrupted_by"] = interrupted
            if res.status != OPTIMAL:
                res.status = INTERRUPTED
                res.message = f"interrupted by {interrupted}"
        return res
