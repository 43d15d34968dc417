"""Plugin for the ``scale`` and ``large`` suites: ``asobs-dual`` and ``asobs-highs`` are method
``asobs`` with its LP bound fixed (``bound="dual"`` / ``bound="highs"``, whatever ``bound="auto"``
would choose), so that one bench run compares the two LP bounds beside the same search on the
same caches (the exploration is time-budgeted, so two runs do not see the same cache).
``asobs-dual-local`` is the dual bound with local cuts of four variables in its root
(``dual_options={"local_cuts": 4}``).

    lpbn bench scale --plugin instances/suites/bound_methods.py --methods asobs-dual,asobs-highs
    lpbn bench large --plugin instances/suites/bound_methods.py --methods auto,asobs-dual,asobs-highs
"""

import lpbn
from lpbn.certified import solve_asobs


def solve_asobs_dual(cache, control, **options):
    """``asobs`` beside the dual bound."""
    return solve_asobs(cache, control, **{**options, "bound": "dual"})


def solve_asobs_highs(cache, control, **options):
    """``asobs`` beside the HiGHS ILP's bound."""
    return solve_asobs(cache, control, **{**options, "bound": "highs"})


def solve_asobs_dual_local(cache, control, **options):
    """``asobs`` beside the dual bound with ``local_cuts=4`` (other dual options pass through)."""
    dual = {"local_cuts": 4, **(options.pop("dual_options", None) or {})}
    return solve_asobs(cache, control, **{**options, "bound": "dual", "dual_options": dual})


lpbn.register_method("asobs-dual", solve_asobs_dual)
lpbn.register_method("asobs-highs", solve_asobs_highs)
lpbn.register_method("asobs-dual-local", solve_asobs_dual_local)
