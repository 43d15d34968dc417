"""The size thresholds behind :class:`~lpbn.dual.options.DualOptions`' defaults for a cache
(:meth:`DualOptions.resolved`), which the branch and bound (:mod:`.bnb`) and the solver's entry
points (:mod:`.solver`) also read.  They live here, below both, so that the options do not
import the search that imports them.
"""

#: Polish the dual LP exactly (HiGHS) only below this many candidate rows.
POLISH_MAX_ROWS = 300_000
#: The OBS incumbent search runs by default (``local_search`` 0.05) only up to this many
#: variables: its climbs over bitsets cost O(n^2) words each, ~2 s at n = 1,001 but ~90 s at
#: n = 2,000, where the race's dual spent 182 of its 300 s in the first search's two climbs
#: (synthetic-2000, results/scale/README.md).
LOCAL_SEARCH_MAX_N = 1500
#: ``primal_first`` by default only up to this many variables: each greedy growth at η costs
#: O(n^2 |support|), which dominates a separation round on the 400-1000-variable caches
#: (munin1-5000, n = 186, is solved faster with it).
PRIMAL_FIRST_MAX_N = 256
#: Above this many variables the relaxation adds many clusters per round and runs few CD sweeps
#: between separations (``separation_batch`` and ``round_sweeps`` in :class:`DualOptions`).
SCALE_N = 1000
