"""Which problem a bound is for: :func:`bound_scope` of a cache, :func:`scope_text` to print it.

A bound from any solver holds over the DAGs whose parent sets are in the cache that was solved
(``"cache"``).  It holds for more only when the cache provably holds an optimal DAG of a wider
problem: an exhaustive exploration with safe pruning (Tian 2000; Chen et al.'s bounds; subset
dominance, de Campos et al. 2018) keeps an optimal DAG among every DAG within the parent limit
(``"parent_limit:K"``) or among every DAG (``"all"``, no limit).  A budgeted exploration
(independence selection) or the search on the data (:mod:`lpbn.datasearch`) keeps some sets
only: a DAG outside the cache can score above the bound (issue 52: bnlearn's ``tabu()`` network
on baudio scored above the bound printed for lpbn's independence-selection cache).
"""

from __future__ import annotations

from typing import Any

__all__ = ["ALL", "CACHE", "bound_scope", "scope_text"]

CACHE = "cache"
ALL = "all"


def bound_scope(meta: dict[str, Any] | None) -> str:
    """``"all"``, ``"parent_limit:K"`` or ``"cache"`` from a cache's ``meta`` (what
    :func:`lpbn.score_data` records; a cache read from a file has no exploration recorded, so
    its scope is its candidate sets)."""
    meta = meta or {}
    if meta.get("explore") == "exhaustive" and meta.get("k_best", 1) == 1 and "order" not in meta:
        mp = meta.get("max_parents")
        return ALL if mp is None else f"parent_limit:{int(mp)}"
    return CACHE


def scope_text(scope: str) -> str:
    """Words for the scope, to print beside a gap: ``gap 0.10% over the cache's candidate sets``."""
    if scope == ALL:
        return "over every DAG"
    if scope.startswith("parent_limit:"):
        return f"over every DAG with at most {scope.split(':', 1)[1]} parents per variable"
    return "over the cache's candidate sets"
