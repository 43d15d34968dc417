"""Plugin of the ``parallel`` suite: ``dp-t1`` and ``dp-t2`` are the subset DP under two names,
so that one bench run times it at 1 and at 2 threads side by side (the suite's
``[options.dp-t1]``/``[options.dp-t2]`` set ``threads``; for its k-best entries the same options
reach the k-best tables, ``lpbn.solve(..., k_best=K, threads=T)``).

    lpbn bench parallel --plugin instances/suites/parallel_methods.py
"""

import lpbn

lpbn.register_method("dp-t1", "lpbn.dp:solve_dp")
lpbn.register_method("dp-t2", "lpbn.dp:solve_dp")
