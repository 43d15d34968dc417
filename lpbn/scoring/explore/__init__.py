"""Parent-set exploration strategies: one module per paper's algorithm, one entry point each.

Each strategy explores the candidate parent sets of one child variable over the same
counting kernels (:mod:`lpbn.scoring.counting`) and local scores (:mod:`lpbn.scoring.scores`)
and returns the kept sets with their exact scores:

``exhaustive``
    every set within the parent limit, pruned safely (Tian 2000 DFBnB; :mod:`.exhaustive`);
``independence``
    independence selection guided by BIC* (Scanagatta et al. 2015, §3.1-3.2; :mod:`.independence`);
``greedy``
    greedy selection (the same paper's first baseline; :mod:`.greedy`);
``sequential``
    sequential ordering, all sets of size 1, then 2, ... (its second baseline; :mod:`.sequential`).

The budgeted three share :mod:`.budgeted` (single parents from bit planes, the pool of
variables that may be added, budgets, the final selection) and :mod:`.frontier` (closed
list, seen-set table, open heap).  A new strategy is one module plus one entry in
:data:`STRATEGIES`.
"""

from __future__ import annotations

from typing import Any

STRATEGIES = ("exhaustive", "independence", "greedy", "sequential")
BUDGETED = ("independence", "greedy", "sequential")


def explore_variable(ctx, x: int, seconds: float | None = None) -> dict[str, Any]:
    """Kept parent sets of variable ``x`` under ``ctx.explore`` (see the module docstring);
    ``seconds`` overrides the budgeted strategies' ``time_per_variable`` for this variable."""
    if ctx.explore == "exhaustive":
        from .exhaustive import explore
        return explore(ctx, x)
    from .budgeted import explore
    return explore(ctx, x, ctx.explore, seconds)

