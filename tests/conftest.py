"""Shared fixtures: the bundled instances and, when present, the shared benchmark collection."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
INSTANCES = ROOT / "instances"


def shared_dir() -> Path | None:
    """The shared benchmark collection (``$LPBN_SHARED`` or ``../shared``), or None."""
    env = os.environ.get("LPBN_SHARED")
    cand = Path(env) if env else ROOT.parent / "shared"
    return cand if (cand / "instances" / "KNOWN_OPTIMA.json").exists() else None


@pytest.fixture(scope="session")
def instances() -> Path:
    return INSTANCES


@pytest.fixture(scope="session")
def known_optima() -> dict:
    """instances/KNOWN_OPTIMA.json: exact_dp, gobnilp_bic3 and published optima."""
    return json.loads((INSTANCES / "KNOWN_OPTIMA.json").read_text())


@pytest.fixture(scope="session")
def shared() -> Path:
    """The shared collection; tests that need it are skipped when it is absent."""
    d = shared_dir()
    if d is None:
        pytest.skip("shared benchmark collection not found (set LPBN_SHARED)")
    return d


def pytest_sessionstart(session):
    """Compile every method's kernels once before any test runs (what ``lpbn warmup`` does, on
    every core): a timed solve on a cold install compiles in a child process and may return a
    quick answer instead (lpbn.warmup), which tests of the methods must not get."""
    # subprocesses (`python -m lpbn ...` in a temporary directory) import the lpbn these tests
    # import (the installed wheel in CI, else this checkout): the same code as the in-process
    # tests, and one compile cache
    import lpbn
    home = str(Path(lpbn.__file__).resolve().parent.parent)
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (home, os.environ.get("PYTHONPATH")) if p)
    from lpbn import warmup
    from lpbn.race import cores
    if cores() > 1:
        warmup.warm_all(list(warmup.METHODS), cores())
    warmup.main([])      # anything still cold compiles here, where an error would show


#: Tests that took 3 s or more in CI (`--durations`, commit 6e10a68, a loaded machine): marked
#: ``slow`` so that ``python -m pytest -m "not slow"`` is the fast tier for local use (CI runs all).
SLOW_TESTS = frozenset({
    "tests/test_bench.py::test_crash_hang_and_memout_keep_the_other_rows",
    "tests/test_bench.py::test_pgmpy_hill_climbing_peer_scores_its_dag_with_lpbn_bic",
    "tests/test_bench.py::test_synthetic_and_data_instances_report_networks",
    "tests/test_bench_smoke.py::test_smoke_suite_is_clean",
    "tests/test_bench_suites.py::test_gap_and_check_methods_record_tables_and_verdicts",
    "tests/test_bfbnb.py::test_bundled_exact_optima",
    "tests/test_bfbnb.py::test_equals_dp_on_random_caches",
    "tests/test_bfbnb.py::test_shared_exact_dp_sweep",
    "tests/test_bfbnb.py::test_sigint_of_a_running_process_leaves_no_temp_files",
    "tests/test_bfbnb.py::test_tiny_memory_streams_layers_from_disk_and_still_optimal",
    "tests/test_certified.py::test_a_bound_process_that_never_answers_still_leaves_its_bound_so_far",
    "tests/test_certified.py::test_auto_bound_by_size",
    "tests/test_certified.py::test_highs_bound",
    "tests/test_certified.py::test_side_by_side_with_dags_larger_than_a_pipe_buffer",
    "tests/test_certified.py::test_time_is_shared_and_status_is_honest",
    "tests/test_constraints.py::test_dp_equals_constrained_brute_force",
    "tests/test_dp.py::test_bundled_exact_optima",
    "tests/test_dp.py::test_parallel_dp_tables_equal_the_serial_ones",
    "tests/test_dual.py::test_csr_membership_tests_match_bitsets",
    "tests/test_dual.py::test_kclusters_join_tailing_cluster_rounds",
    "tests/test_dual.py::test_pure_cd_mode_is_exact_on_anchors",
    "tests/test_dual.py::test_relax_stops_when_told_from_outside",
    "tests/test_dual_parallel.py::test_a_failing_worker_leaves_a_valid_answer",
    "tests/test_dual_parallel.py::test_certificate_keeps_the_search_serial_and_verifiable",
    "tests/test_dual_parallel.py::test_node_limit_and_gap_limit_in_parallel",
    "tests/test_dual_parallel.py::test_parallel_subtrees_prove_the_serial_optimum",
    "tests/test_dual_parallel.py::test_time_limit_stops_every_worker_with_a_valid_bound",
    "tests/test_dual_parallel.py::test_two_workers_share_the_tree_of_a_real_cache",
    "tests/test_explore.py::test_dask_local_cluster_gives_the_same_cache",
    "tests/test_fixing.py::test_feed_indices_survive_a_rebuild",
    "tests/test_fixing.py::test_fixing_inside_the_root_chains_in_the_certificate",
    "tests/test_fixing.py::test_same_optimum_with_and_without_fixing",
    "tests/test_formats.py::test_every_bundled_score_file_parses",
    "tests/test_formats.py::test_fast_jkl_path_equals_careful_parser_on_bundled_files",
    "tests/test_formats.py::test_fuzz_garbage",
    "tests/test_fuzz.py::test_fuzz_score_readers",
    "tests/test_highs.py::test_fixing_by_reduced_cost_keeps_the_optimum",
    "tests/test_highs.py::test_generation_rows_alone_make_the_ilp_exact",
    "tests/test_highs.py::test_highs_on_bundled_exact_optima",
    "tests/test_highs_crosscheck.py::test_shared_sweep_small_files",
    "tests/test_kbest.py::test_brute_force_every_rank",
    "tests/test_kbest.py::test_bundled_instance_engines_agree",
    "tests/test_kbest.py::test_cli_json_and_text",
    "tests/test_kbest.py::test_lp_regret_bounds_agree_with_the_dp_tables_on_classes",
    "tests/test_layout.py::test_no_private_name_crosses_a_module",
    "tests/test_local_cuts.py::test_cuts_are_violated_at_the_point_and_valid_for_every_dag",
    "tests/test_local_cuts.py::test_the_dual_takes_local_cuts_with_their_lp_multiplier",
    "tests/test_lp_numpy_kernels.py::test_auto_goes_on_with_its_method_when_highs_without_numba_has_no_proof",
    "tests/test_lp_numpy_kernels.py::test_highs_without_numba_agrees_with_the_dp_in_a_fresh_process",
    "tests/test_lp_numpy_kernels.py::test_twins_return_what_the_kernels_return",
    "tests/test_ordering.py::test_greedy_start_matches_its_reference",
    "tests/test_ordering.py::test_population_breeds_from_crossover_children",
    "tests/test_ordering.py::test_two_thousand_variables",
    "tests/test_race.py::test_a_hopeless_rival_yields_its_core_to_the_dual",
    "tests/test_race.py::test_a_rival_projecting_past_the_time_limit_yields",
    "tests/test_race.py::test_a_rival_that_can_finish_keeps_its_core",
    "tests/test_scoring_safety.py::test_kbest_n5_exercises_chen_algorithm2",
    "tests/test_shared_collection.py::test_dp_reproduces_all_known_optima",
    "tests/test_shared_collection.py::test_every_score_file_parses_or_fails_precisely",
    "tests/test_signals.py::test_cli_score_with_one_job_stops_within_a_long_variable",
    "tests/test_signals.py::test_cli_solve_interrupted_writes_result",
    "tests/test_warmup.py::test_cli_processes_skip_numbas_blas_probe",
    "tests/test_warmup.py::test_light_cache_loads_leave_compiling_intact",
    "tests/test_warmup.py::test_lpbn_warmup_jobs_compiles_in_children",
    "tests/test_zero_half.py::test_cuts_are_violated_at_the_point_and_valid_for_every_dag",
    "tests/test_zero_half.py::test_dual_with_cuts_in_every_round_agrees_with_the_dp",
})


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.nodeid.split("[", 1)[0] in SLOW_TESTS:
            item.add_marker(pytest.mark.slow)
