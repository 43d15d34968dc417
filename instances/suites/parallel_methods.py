"""Plugin of the ``parallel``, ``parallel-bfbnb`` and ``parallel-dual`` suites: ``dp-t1`` and
``dp-t2`` are the subset DP under two names, ``bfbnb-t1`` and ``bfbnb-t2`` the order-graph search,
``dual-w1`` and ``dual-w2`` the dual branch and bound, so that one bench run times each at 1 and
at 2 threads (workers) side by side (the suites' ``[options.dp-t1]`` etc. set
``threads``; for the k-best entries of ``parallel`` the same options reach the k-best tables,
``lpbn.solve(..., k_best=K, threads=T)``).

    lpbn bench parallel --plugin instances/suites/parallel_methods.py
    lpbn bench parallel-bfbnb --plugin instances/suites/parallel_methods.py
    lpbn bench parallel-dual --plugin instances/suites/parallel_methods.py
"""

import lpbn

lpbn.register_method("dp-t1", "lpbn.dp:solve_dp")
lpbn.register_method("dp-t2", "lpbn.dp:solve_dp")
# the order-graph search at 1 and 2 threads (suite parallel-bfbnb): the same layers either way
lpbn.register_method("bfbnb-t1", "lpbn.bfbnb.search:solve_bfbnb")
lpbn.register_method("bfbnb-t2", "lpbn.bfbnb.search:solve_bfbnb")
# the dual branch and bound at 1 and 2 workers (suite parallel-dual; its options set workers)
lpbn.register_method("dual-w1", "lpbn.dual.solver:solve_dual")
lpbn.register_method("dual-w2", "lpbn.dual.solver:solve_dual")
