"""Every performance-tuning constant of lpbn, in one place (issue 55, item 4).

What is here: time shares, delays, budgets, the thresholds that pick a method or a path,
batch and round sizes, walk lengths, density cut-offs, grace seconds.  Each constant has one
line saying what it controls and one evidence line in the fixed form
``evidence: <suite or instances>, <repeats>, <commit>`` (the measurements behind it are in
that commit's message and diff, and in results/); "needs a whole-suite sweep" marks a value
chosen on a few instances or one run, which the project's standard asks to re-derive on whole
suites with at least three repeats (docs/engine.md, "Tuning constants and sweeps":
``tools/sweep.py NAME V1,V2 --suite SUITE --repeats 3``).

What is not here: the correctness tolerances and the bound-safety policy (lpbn.bound,
lpbn.result.OPTIMALITY_TOLERANCE, lpbn.normalise), file-format constants, mathematical
constants, capacity limits that decide what is refused rather than how fast it runs, and the
documented defaults of an options dataclass field (declared once in that dataclass).  The
verifier (lpbn.verify, lpbn.verify_dp) keeps its one block size itself: it imports nothing of
lpbn's solving side, not even this module (tests/test_verify.py).  Every numeric constant
outside this module is listed, each with its reason, in tests/test_tuning.py.

This module imports nothing (it sits in the lowest layer), so ``lpbn bench --tune NAME=VALUE``
can load it and set a value before the rest of lpbn is imported (lpbn/bench/worker.py): every
module reads these names at import time or at call time, after the override.  Two of them are
compiled into cached numba kernels and cannot be overridden that way (lpbn.bench.tune.COMPILED).
"""

# ---------------------------------------------------------------- portfolio: method="auto"
# (lpbn.portfolio; the plans and their measurements: results/scale, results/dual, results/large)

#: subset DP up to this many variables
#: evidence: uci-bic3 whole suite, 3 runs, c365e8a — 17: 0.965 of the default, within noise (5.7%)
AUTO_DP_MAX_N = 20
#: order-graph search (bfbnb) up to this many variables on dense caches
#: evidence: uci-bic3 whole suite, 3 runs, c365e8a — 25: 1.116 and one cache fewer optimal in 60 s
AUTO_BFBNB_MAX_N = 30
#: candidates per variable from which a cache counts as dense for bfbnb
#: evidence: uci-bic3 whole suite, 3 runs, c365e8a — 100: 0.994, within noise (5.7%)
AUTO_BFBNB_MIN_DENSITY = 50
#: the dual-vs-bfbnb race up to this many variables (two cores)
#: evidence: uci-bic3 whole suite, 3 runs, c365e8a — 30: 1.014 and soybean unsolved in 60 s
AUTO_RACE_MAX_N = 40
#: the dual LP branch and bound up to this many variables
#: evidence: 13 gobnilp anchors + blip suite, 1 run, 93ba253 — needs a whole-suite sweep
AUTO_DUAL_MAX_N = 100
#: the dual only up to this many candidates per variable
#: evidence: baudio/munin1 (scale suite), 1 run, 5576f2e — needs a whole-suite sweep
AUTO_DUAL_MAX_DENSITY = 500
#: the HiGHS ILP only up to this many candidates per variable
#: evidence: baudio/munin1 (scale suite), 1 run, 5576f2e — needs a whole-suite sweep
AUTO_HIGHS_MAX_DENSITY = 200
#: the HiGHS ILP only up to this many candidates in all
#: evidence: baudio/munin1 (scale suite), 1 run, 5576f2e — needs a whole-suite sweep
AUTO_HIGHS_MAX_M = 250_000
#: the HiGHS ILP only up to this many variables (asobs beyond)
#: evidence: synthetic-2000 only, 1 run, 837f4d5 — needs a whole-suite sweep
AUTO_HIGHS_MAX_N = 1500
#: from this many variables two cores run asobs beside the ILP instead of the ILP-vs-dual race
#: evidence: large suite (diabetes/pigs/munin/moviereview), 1 run, 910a67d — needs a whole-suite sweep
AUTO_SEARCH_HIGHS_MIN_N = 300
#: seconds the numba-free HiGHS stage gets on small sparse caches before the chosen method
#: evidence: uci-bic3 whole suite, 3 runs, c365e8a — 0.75: 0.945, within noise (5.7%)
AUTO_LIGHT_SECONDS = 1.5
#: candidates per variable up to which a cache gets the numba-free stage
#: evidence: startup suite, 1 run, d5cecb5 — needs a whole-suite sweep
AUTO_LIGHT_MAX_DENSITY = 40
#: fewest variables for the numba-free stage (the DP's numpy path is faster below)
#: evidence: uci-bic3 whole suite, 3 runs, c365e8a — 23: 1.042 (rounds 1.016-1.126)
AUTO_LIGHT_MIN_DP_N = 19

# ---------------------------------------------------------------- race (lpbn.race)

#: seconds to wait for the rival's answer after a time limit or a signal
#: evidence: none (a plain choice), 528b494
RIVAL_GRACE = 5.0
#: the rival yields its core when it projects more than this many seconds still to go
#: evidence: uci-bic3 whole suite, 3 runs, c365e8a — off: 0.952, noise at a 60-s limit; no limit unswept
HANDOVER_HORIZON = 30.0
#: ... in this many consecutive per-layer estimates
#: evidence: uci-bic3 whole suite, 3 runs, c365e8a — 4: 0.936, within noise (rounds 0.878-1.081)
HANDOVER_LAYERS = 2
#: seconds a yielding rival has to send its answer before it is killed
#: evidence: none (a plain choice), 5044367
YIELD_GRACE = 2.0

# ---------------------------------------------------------------- search beside an LP bound (lpbn.certified)

#: share of the time limit the ordering search gets (the rest bounds)
#: evidence: none (a plain half-and-half split), 8a113bc
CERTIFIED_SEARCH_SHARE = 0.5
#: above this many variables the bounding dual runs without its own ordering local search
#: evidence: none (a plain choice: the search phase supplies the incumbent), 8a113bc
CERTIFIED_DUAL_LOCAL_SEARCH_MAX_N = 1000
#: bound="auto" takes the HiGHS ILP from this many variables (the dual below)
#: evidence: scale suite (4 caches of 69-100 vs 8 of 111-1041 variables), 1 run, 686d7f4 — needs a whole-suite sweep
AUTO_BOUND_HIGHS_MIN_N = 101
#: ... up to this many variables
#: evidence: synthetic-2000 only, 1 run, 21898cd — needs a whole-suite sweep
AUTO_BOUND_HIGHS_MAX_N = 1500
#: ... and this many candidates in all
#: evidence: synthetic-2000 + scale caches, 1 run, 21898cd — needs a whole-suite sweep
AUTO_BOUND_HIGHS_MAX_M = 250_000
#: the HiGHS bound adds local cuts from this many candidates per variable
#: evidence: scale suite (2 dense vs 5 sparse caches), 1 run, 296d4cb — needs a whole-suite sweep
LOCAL_CUTS_MIN_DENSITY = 500
#: variables of those local cuts
#: evidence: connect4/accidents only, 1 run, 0ceea5b — needs a whole-suite sweep
LOCAL_CUTS_K = 5
#: seconds the bound's process gets to answer after a stop request
#: evidence: none (a plain choice: it stops within about a second), 474927a
BOUND_STOP_GRACE = 10.0
#: seconds past the time limit before a silent bound process gets a stop request
#: evidence: synthetic-2000 only, 1 run, 5c189c4 — needs a whole-suite sweep
BOUND_LATE = 2.0

# ---------------------------------------------------------------- front door and processes

#: seconds kept for the quick answer when a cold method's compilation outlasts the time limit
#: evidence: none (a plain choice), b9abd0a
WARMUP_MARGIN = 0.3
#: seconds a forked worker has to leave after SIGTERM before it is killed (lpbn.workers)
#: evidence: none (a plain choice: a stopped method returns within about a second), 3265fa8
WORKER_GRACE = 5.0
#: seconds after a stop request before a child gets SIGKILL (lpbn.signals)
#: evidence: none (a plain choice), 42c1f5b
STOP_KILL_AFTER = 10.0
#: seconds between repeated stop signals to a child still running (lpbn.signals)
#: evidence: none (a plain choice: CBC ignores a SIGINT before its branch and bound), 42c1f5b
STOP_REPEAT_EVERY = 1.0

# ---------------------------------------------------------------- score cache and subset DP

#: largest family scanned with numpy by ScoreCache.best_parent_set
#: evidence: none (a plain choice), b8a6a13
SMALL_FAMILY = 4096
#: the numpy dominance test takes families of up to this many candidate pairs in all
#: evidence: none (a plain choice), b8a6a13
SMALL_PAIRS = 4_000_000
#: ... and up to this many while numba is not loaded in the process
#: evidence: letter only, 1 run, f5d90f6 — needs a whole-suite sweep
COLD_PAIRS = 50_000_000
#: rows of one family's pair table built at once (bounded memory)
#: evidence: none (a memory bound), f5d90f6
PAIR_BLOCK = 2_000_000
#: largest n the DP solves with numpy alone
#: evidence: uci-bic3 whole suite, 3 runs, c365e8a — 12: 0.969, within noise (5.7%)
NUMPY_MAX_N = 16
#: ... while numba is not loaded in the process
#: evidence: random caches (n = 17/20), 1 run, f5d90f6 — needs a whole-suite sweep
NUMPY_COLD_MAX_N = 20
#: high bits that split the DP's subsets into parallel blocks
#: evidence: none (a plain choice), 5458326
BLOCK_HIGH_BITS = 10
#: fewest variables for which the DP's parallel kernels run
#: evidence: hepatitis only, runs not recorded, a9951a3 — needs a whole-suite sweep
PARALLEL_MIN_N = 22
#: table entries transformed in one block for the low bits (256 KiB: within L2); compiled in
#: evidence: none (a cache-size choice), 5458326
TRANSFORM_BLOCK = 1 << 15

# ---------------------------------------------------------------- the LP relaxation (lpbn.lp)

#: k-clusters join the cluster rounds once this many rounds tailed off
#: evidence: connect4/accidents/hailfinder-20000, 1 run, d437db0 — needs a whole-suite sweep
TAIL_ROUNDS = 3
#: ... each lowering the bound by less than this share of the gap
#: evidence: connect4/accidents/hailfinder-20000, 1 run, d437db0 — needs a whole-suite sweep
TAIL_GAIN = 0.01
#: ... while the relative gap is above this
#: evidence: connect4/accidents/hailfinder-20000, 1 run, c900363 — needs a whole-suite sweep
TAIL_MIN_GAP = 0.01
#: local cuts beside tailing rounds while the relative gap is above this
#: evidence: accidents/connect4 only, 1 run, 982a9da — needs a whole-suite sweep
LOCAL_TAIL_MIN_GAP = 1e-4
#: share of the cut loop's time the local cuts' separation may take beside tailing rounds
#: evidence: connect4/accidents/munin1-5000, 1 run, 0ceea5b — needs a whole-suite sweep
LOCAL_TIME_SHARE = 0.5
#: {0, 1/2}-cut passes with zero_half="slack": slacks of tight / integral
#: evidence: hailfinder-20000 only, 1 run, 2782f60 — needs a whole-suite sweep
ZERO_HALF_SLACKS = (0.0, 0.1, 0.25)
#: smallest violation of a slack pass's {0, 1/2}-cut
#: evidence: hailfinder-20000 only, 1 run, 2782f60 — needs a whole-suite sweep
ZERO_HALF_MIN_VIOLATION = 0.05
#: no {0, 1/2} separation when the GF(2) elimination table would exceed this many cells
#: evidence: none (a memory bound for wide caches), 24307f3
MAX_ELIMINATION_CELLS = 25_000_000
#: the cluster sub-IP stops after this many violated clusters
#: evidence: none (a plain choice), fc6ba28
SUBIP_MAX_SOLS = 3
#: nodes of the exact cluster enumeration before the HiGHS sub-IP takes over
#: evidence: none (a plain choice), 8f45bcf
ENUM_MAX_NODES = 2_000_000
#: ... in numpy (small caches without numba)
#: evidence: none (a plain choice), d5cecb5
NUMPY_ENUM_MAX_NODES = 300_000
#: smallest violation a local cut must have (box normalisation)
#: evidence: none (a plain choice), 982a9da
LOCAL_CUTS_MIN_VIOLATION = 1e-3
#: variables of largest edge marginal that each variable's local-cut sets are drawn from
#: evidence: none (a plain choice), 982a9da
LOCAL_CUTS_NEIGHBOURS = 6
#: columns per variable a restricted EtaLP starts with
#: evidence: none (a plain choice), e6bc607
ETA_LP_START_COLUMNS = 16
#: columns per variable priced into a restricted EtaLP per round at most
#: evidence: none (a plain choice), e6bc607
ETA_LP_PRICE_COLUMNS = 8

# ---------------------------------------------------------------- the dual (lpbn.dual)

#: the dual LP is polished exactly (HiGHS) only below this many candidate rows
#: evidence: none (a plain choice), a30071e
POLISH_MAX_ROWS = 300_000
#: the dual's OBS incumbent search runs by default only up to this many variables
#: evidence: synthetic-2000 only, 1 run, 837f4d5 — needs a whole-suite sweep
LOCAL_SEARCH_MAX_N = 1500
#: primal_first by default only up to this many variables
#: evidence: munin1-5000 and 400-1000-variable caches, 1 run, 93ba253 — needs a whole-suite sweep
PRIMAL_FIRST_MAX_N = 256
#: above this many variables the relaxation adds many clusters per round, few sweeps between
#: evidence: one 10000-variable cache, 1 run, 8a113bc — needs a whole-suite sweep
DUAL_SCALE_N = 1000
#: perturbation climbs of the OBS incumbent search credited per CD sweep (local_search=1)
#: evidence: none (a plain choice), 6ee03b3
OBS_CLIMBS_PER_SWEEP = 20
#: a relaxation round counts as this many CD sweeps of work
#: evidence: none (a plain choice), cfc442b
OBS_ROUND_SWEEPS = 4
#: one OBS climb costs max(1, n^2 / this) CD sweeps
#: evidence: n = 56/441/1041 caches (a cost fit), 1 run, cfc442b
OBS_CLIMB_N2 = 20_000
#: perturbation climbs of the first OBS search, before the root
#: evidence: none (a plain choice), cfc442b
OBS_FIRST_CLIMBS = 20
#: after this many climbs in a row without improvement the search's credit slows down
#: evidence: munin1-5000 only, 1 run, acb9a32 — needs a whole-suite sweep
OBS_IDLE_CLIMBS = 200
#: ... to this share of its rate
#: evidence: munin1-5000 only, 1 run, acb9a32 — needs a whole-suite sweep
OBS_IDLE_SHARE = 0.1
#: reduced-cost fixing rebuilds the cache once this share of it is fixed (masks below)
#: evidence: wdbc/soybean only, 1 run, 79754d3 — needs a whole-suite sweep
FIXING_REBUILD_FRACTION = 0.5
#: inside the root, fix and rebuild once λ fixes this share of the candidates
#: evidence: uci-bic3 whole suite, 3 runs, c365e8a — 0.3: 0.916, within noise (rounds 0.907-1.025)
ROOT_FIXING_FRACTION = 0.6
#: support ILPs free of charge at the start of the dual's search
#: evidence: uci-bic3 + bnlearn20000 + blip5000, 3 runs each, c365e8a — 0: noise; kept for dual alone
DUAL_SUPPORT_MIP_FREE = 5
#: ... and this many more per node evaluated
#: evidence: wdbc/alarm-5000 only, 1 run, f7566de — needs a whole-suite sweep
DUAL_SUPPORT_MIP_PER_NODE = 0.1
#: seconds one support ILP may run at most
#: evidence: none (a plain choice), 61056f0
DUAL_SUPPORT_MIP_NODE_SECONDS = 1.0
#: share of the time so far (and of the time left) the support ILPs may take
#: evidence: none (a plain choice), a8af523
DUAL_SUPPORT_MIP_SHARE = 0.1
#: rounds over which the bound must tail off before the dual separates {0, 1/2}-cuts
#: evidence: uci-bic3 whole suite, 3 runs, c365e8a — 3: 0.991, within noise (5.7%)
CUT_TAIL_ROUNDS = 6
#: CD sweeps in a node's first round before the exact polish
#: evidence: none (a plain choice), 000d962
POLISH_SWEEPS = 5
#: solves a cluster row stays basic with a zero dual before it may leave the polish LP
#: evidence: none (a plain choice), 2a2420e
POLISH_DROP_IDLE = 3
#: rows leave the polish LP in batches of at least this many
#: evidence: none (a plain choice), 2a2420e
POLISH_DROP_MIN = 50
#: candidates per variable above which the polish LP is a restricted (priced) model
#: evidence: none (a plain choice), e6bc607
POLISH_RESTRICT_ABOVE = 64
#: columns per variable in a restricted polish LP's first solve
#: evidence: none (a plain choice), e6bc607
POLISH_START_COLUMNS = 16
#: columns per variable priced into the polish LP per round at most
#: evidence: none (a plain choice), e6bc607
POLISH_PRICE_COLUMNS = 8
#: seconds an idle parallel worker waits on its queue between checks
#: evidence: none (a plain choice), 457a161
DUAL_IDLE_POLL = 0.005
#: seconds the first process waits for the workers' reports after the search ended
#: evidence: none (a plain choice), 457a161
DUAL_REPORT_GRACE = 10.0
#: caches of at least this many 64-bit words per set test cluster membership on CSR lists
#: evidence: none (a plain choice), 7437a65
CSR_MIN_WORDS = 4

# ---------------------------------------------------------------- the HiGHS ILP (lpbn.highs)

#: re-solves for pricing per root cut round before it separates anyway (dense caches)
#: evidence: hailfinder-20000 (8 perturbed draws) + connect4, 1 run each, 73dea96 — needs a whole-suite sweep
ROOT_MAX_PRICING = 0
#: beyond this many variables the {0, 1/2} separation also tries nearly tight rows
#: evidence: hailfinder-20000 only, 1 run, 2782f60 — needs a whole-suite sweep
ZERO_HALF_SLACK_MIN_N = 40
#: column generation by default above this many candidates per variable
#: evidence: none (as POLISH_RESTRICT_ABOVE), e4519d9
COLUMN_GENERATION_ABOVE = 64
#: seconds the sub-ILP over the root LP's support runs at most
#: evidence: none (a plain choice), a8af523
HIGHS_SUPPORT_MIP_SECONDS = 10.0
#: ... and this share of the time left
#: evidence: none (a plain choice), a8af523
HIGHS_SUPPORT_MIP_SHARE = 0.1
#: with zero_half="slack" the root deletes slack {0, 1/2}-cuts at every this-many-th LP point
#: evidence: hailfinder-20000 only, 1 run, edcaa99 — needs a whole-suite sweep
PURGE_EVERY = 10
#: a dense root deletes slack cluster rows at every this-many-th LP point (0: never)
#: evidence: accidents/connect4/munin1-5000/pigs-5000, 1 run, 5dda59d — needs a whole-suite sweep
PURGE_CLUSTERS_EVERY = 5
#: candidates per variable from which a root purges clusters and shortens pricing
#: evidence: accidents/connect4/munin1-5000/pigs-5000, 1 run, 5dda59d — needs a whole-suite sweep
PURGE_CLUSTERS_MIN_DENSITY = 500
#: tree="price": (rounds, gain share) after which the root hands over to branch and price
#: evidence: none (a plain choice), e0bf805
ROOT_STALL = (50, 0.05)
#: strong branching: edges probed per split
#: evidence: none (a plain choice), 557aeb5
STRONG_EDGES = 8
#: strong branching: simplex iterations per probe
#: evidence: none (a plain choice), 557aeb5
STRONG_ITERATIONS = 500
#: separation rounds per node of the certificate's tree before it splits
#: evidence: none (a plain choice), 557aeb5
CERTIFY_ROUNDS_PER_NODE = 8
#: cut rounds per branch-and-price node at most
#: evidence: none (a plain choice), e0bf805
NODE_ROUNDS = 10
#: (rounds, gain share) after which a node's cut loop stops
#: evidence: none (a plain choice), e0bf805
NODE_STALL = (3, 0.02)
#: re-solves for pricing per cut round in a node before it separates anyway
#: evidence: none (a plain choice), e0bf805
NODE_MAX_PRICING = 1
#: seconds a node's cut loop may run before it splits
#: evidence: none (a plain choice), e0bf805
NODE_SECONDS = 60.0
#: CBC's start-up, model writing and solution reading, taken off its timeLimit
#: evidence: none (an estimate), bd86fb1
CBC_START_SECONDS = 0.3
#: below this much time left CBC is not started
#: evidence: none (a plain choice), bd86fb1
CBC_MIN_SECONDS = 0.2
#: seconds to build the PuLP model per candidate parent set
#: evidence: none (an estimate), bd86fb1
PULP_SECONDS_PER_SET = 2e-5

# ---------------------------------------------------------------- order-graph search (lpbn.bfbnb)

#: share of the incumbent OBS's patience run before the search
#: evidence: mushroom/parkinsons/sensors/autos/steel/soybean, 1 run, 67d04fd — needs a whole-suite sweep
BFBNB_OBS_FIRST_SHARE = 0.1
#: the incumbent OBS earns one more restart per this many nodes expanded
#: evidence: soybean only, 1 run, 67d04fd — needs a whole-suite sweep
BFBNB_OBS_NODES_PER_RESTART = 1000
#: the smallest RAM budget of the layer search in bytes
#: evidence: none (a plain choice), 42c1f5b
BFBNB_MIN_SEARCH_MEMORY = 1 << 20
#: seconds of layer building before the time per node is trusted by the projection
#: evidence: none (a plain choice), 5044367
BFBNB_MIN_MEASURED_SECONDS = 0.25
#: layers with fewer nodes are expanded serially
#: evidence: none (a plain choice), 9dee6ee
BFBNB_PARALLEL_MIN_LAYER = 20_000
#: top bits that split a layer into blocks for the threads
#: evidence: none (a plain choice), 9dee6ee
BFBNB_BLOCK_BITS = 6
#: successors queued per stream of the merge (cache locality)
#: evidence: none (a plain choice), d0d2871
BFBNB_QUEUE = 64
#: merge steps per kernel call (time-limit and interrupt latency)
#: evidence: none (a plain choice), 92c9d0e
BFBNB_POPS = 1 << 18
#: seconds between the main thread's checks of the time limit and signals
#: evidence: none (a plain choice), 9dee6ee
BFBNB_POLL = 0.05

# ---------------------------------------------------------------- ordering search (lpbn.ordering)

#: restarts in a row without improvement that end a search with no limit given
#: evidence: none (a plain choice), c88ddb7
ORDERING_PATIENCE = 200
#: seconds that end a search with no limit given
#: evidence: none (a plain choice), c88ddb7
ORDERING_SECONDS = 60.0
#: idle restarts after which a chain climbs again from a fresh ordering (SearchOptions.stall)
#: evidence: 16 seed pairs on six scale caches, 1 run each, 3531e7d — needs a whole-suite sweep
ORDERING_STALL = 5000
#: elite local optima kept by ASOBS's population (SearchOptions.population)
#: evidence: none (MINOBS's scheme, a plain choice), 8c31362
ORDERING_POPULATION = 10
#: restarts in a row without improvement that end an individual's local search
#: evidence: none (a plain choice), 8c31362
ORDERING_GENERATION = 100
#: move evaluations per kernel call between two polls of the stop rule
#: evidence: none (a plain choice), c88ddb7
ORDERING_CLIMB_CHUNK = 1 << 13

# ---------------------------------------------------------------- k best (lpbn.kbest)

#: nodes per kernel call of the k-best branch and bound
#: evidence: none (a plain choice), bb4322c
KBEST_CHUNK_NODES = 200_000
#: DAGs buffered per kernel call
#: evidence: none (a plain choice), bb4322c
KBEST_BUFFER = 4096
#: largest pattern-database group (n 2^(n-1) doubles)
#: evidence: none (a memory bound), 5a50393
KBEST_MAX_GROUP = 22
#: share of the remaining time the LP bounds may take
#: evidence: none (a plain choice), 5c6cfe7
KBEST_LP_SHARE = 0.2
#: ... at most this many seconds
#: evidence: none (a plain choice), 5c6cfe7
KBEST_LP_SECONDS = 120.0
#: the deepening rounds aim at this many times K DAGs above their threshold
#: evidence: none (a plain choice), 5089fce
KBEST_AIM = 2.0

# ------------------------------------------------ learning from data (lpbn.datasearch, lpbn.learn, lpbn.pricing)

#: share of the time limit the hill climber gets
#: evidence: none (a plain choice), 46c02c9
HC_SHARE = 0.25
#: share of the rest the enlargement rounds get
#: evidence: none (a plain choice), 46c02c9
ENLARGE_SHARE = 0.75
#: share of the time limit for the short independence selection
#: evidence: nips only, 1 run, 78ba2c7 — needs a whole-suite sweep
IS_SHARE = 0.15
#: the tabu climb ends after this many times n moves without a new best
#: evidence: jester/baudio/accidents, 1 run, a6368cd — needs a whole-suite sweep
WALK = 4
#: the climber is skipped when its first delta table is projected above this share of the limit
#: evidence: moviereview/nips + 69-126-variable tables, 1 run, 46c02c9 — needs a whole-suite sweep
TABLE_SHARE = 0.1
#: without a time limit: the seconds the data search's shares are of
#: evidence: none (a plain choice), ab1f88a
DATASEARCH_SECONDS = 60.0
#: moves a pair stays tabu in the hill climber (bnlearn tabu()'s default)
#: evidence: none (bnlearn's default), ab1f88a
TABU_TENURE = 10
#: tabu moves in a row without a new best before a climb ends (bnlearn's max.tabu)
#: evidence: none (bnlearn's default), ab1f88a
MAX_IDLE = 10
#: share of time_limit kept back for fitting the CPTs and writing the network
#: evidence: none (a plain choice), a6368cd
FIT_RESERVE = 0.03
#: with price=K the share of the limit pricing gets after the search and the solve
#: evidence: none (a plain half-and-half split), 017c3dd
LEARN_PRICE_SHARE = 0.5
#: share of the time left a pricing pass's LP solve may take
#: evidence: jester only, 1 run, de0f007 — needs a whole-suite sweep
PRICING_LP_SHARE = 1.0 / 3.0
#: sets each variable may price in per pass (the best by reduced score)
#: evidence: scale --price 4 suite (5 data sets; with the warm start, gaps 1.20/1.13/0.82/5.13/19.12% against 1.77/1.50/1.31/5.82/18.51% for 1 set and a cold LP), 1 run, e57ef35 — needs 3 repeats and a sweep of the value alone
PRICING_PER_VARIABLE = 50

# ---------------------------------------------------------------- scoring (lpbn.scoring, lpbn.network)

#: explore="auto" is exhaustive up to this many parent sets per variable
#: evidence: none (a plain choice), bd46750
AUTO_EXHAUSTIVE_MAX_SETS = 1_000_000
#: an exhaustive exploration of more sets runs in a worker process even with one job
#: evidence: none (a responsiveness choice), 7f611fa
ISOLATE_MIN_SETS = 2_000_000
#: time_per_variable="auto": about this many seconds of exploration in all
#: evidence: moviereview only, 1 run, bd46750 — needs a whole-suite sweep
AUTO_EXPLORE_SECONDS = 300.0
#: runs smaller than this (variables x rows) are scored in this process by default
#: evidence: none (a plain choice), bd46750
SERIAL_CELLS = 200_000
#: joint tables up to this many cells are counted densely; compiled into numba kernels
#: evidence: none (a plain choice), 99d6d36
DENSE_CELLS = 1 << 14
#: seconds: an exploration chunk faster than this doubles the next one
#: evidence: none (a plain choice), bd46750
EXPLORE_CHUNK_FAST = 0.01
#: seconds: ... slower than this halves it
#: evidence: none (a plain choice), bd46750
EXPLORE_CHUNK_SLOW = 0.05
#: evaluations of Chen et al.'s Algorithm 2 for a k-best parent bound
#: evidence: none (a plain choice), 9fe38b4
ALGORITHM2_BUDGET = 20000
#: uniform draws per block when sampling a network (8 bytes each)
#: evidence: none (a memory bound), ae2774f
SAMPLE_BLOCK = 1 << 22
