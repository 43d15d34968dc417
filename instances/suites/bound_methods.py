"""Plugin for the ``scale`` suite: ``asobs-dual`` and ``asobs-highs`` are method ``asobs`` under two
names, so that one bench run compares the two LP bounds beside the same search on the same
explored caches (the exploration is time-budgeted, so two runs do not see the same cache); the
suite's ``[options.asobs-dual]`` / ``[options.asobs-highs]`` set ``bound``.

    lpbn bench scale --plugin instances/suites/bound_methods.py --methods asobs-dual,asobs-highs
"""

import lpbn

lpbn.register_method("asobs-dual", "lpbn.certified:solve_asobs")
lpbn.register_method("asobs-highs", "lpbn.certified:solve_asobs")
