"""Plugin for the ``scale`` suite: ``asobs-dual`` and ``asobs-highs`` are method ``asobs`` under two
names, so that one bench run compares the two LP bounds beside the same search on the same
explored caches (the exploration is time-budgeted, so two runs do not see the same cache); the
suite's ``[options.asobs-dual]`` / ``[options.asobs-highs]`` set ``bound``.  ``asobs-dual-local``
is the dual bound with local cuts of four variables in its root (``dual_options={"local_cuts": 4}``).

    lpbn bench scale --plugin instances/suites/bound_methods.py --methods asobs-dual,asobs-highs
"""

import lpbn
from lpbn.certified import solve_asobs


def solve_asobs_dual_local(cache, control, **options):
    """``asobs`` beside the dual bound with ``local_cuts=4`` (other dual options pass through)."""
    dual = {"local_cuts": 4, **(options.pop("dual_options", None) or {})}
    return solve_asobs(cache, control, **{**options, "bound": "dual", "dual_options": dual})


lpbn.register_method("asobs-dual", "lpbn.certified:solve_asobs")
lpbn.register_method("asobs-highs", "lpbn.certified:solve_asobs")
lpbn.register_method("asobs-dual-local", solve_asobs_dual_local)
