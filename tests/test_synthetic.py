"""Synthetic Bayesian networks: BayesianNetwork, random_network/random_dataset, metrics and
``lpbn sample``."""

import gzip
import itertools
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lpbn.cli import main
from lpbn.errors import InputError
from lpbn.metrics import (edge_confusion, moral_graph, moral_hamming_distance,
                          structural_hamming_distance as shd)
from lpbn.network import BayesianNetwork, NetworkError
from lpbn.result import DAG
from lpbn.scoring import Dataset, read_data
from lpbn.synthetic import random_dataset, random_network, sample_seed_for, write_csv


def chain_net():
    """X0 (2 states) -> X2 <- X1 (3 states); X2 has 6 states and equals the row code."""
    cpt2 = np.eye(6)  # row code = s0 * 3 + s1 -> state code
    return BayesianNetwork(["X0", "X1", "X2"], [2, 3, 6], [[], [], [0, 1]],
                           [[[0.3, 0.7]], [[0.2, 0.5, 0.3]], cpt2])


def brute_joint(net):
    """Every joint state with its probability (tiny networks only)."""
    out = []
    for x in itertools.product(*(range(r) for r in net.arities)):
        p = 1.0
        for i, ps in enumerate(net.parents):
            code = 0
            for q in ps:
                code = code * net.arities[q] + x[q]
            p *= net.cpts[i][code, x[i]]
        out.append((x, p))
    return out


# ---------------------------------------------------------------------- BayesianNetwork
def test_row_code_first_parent_most_significant():
    net = chain_net()
    x = net.sample(500, seed=1)
    assert x.shape == (3, 500) and x.dtype == np.int32
    assert np.array_equal(x[2], x[0] * 3 + x[1])
    assert net.dag == DAG(["X0", "X1", "X2"], [[], [], [0, 1]])


def test_unsorted_parents_permute_the_cpt():
    rng = np.random.default_rng(0)
    cpt = rng.dirichlet([1, 1], size=6)           # rows coded s1 * 2 + s0 (X1 listed first)
    a = BayesianNetwork(["X0", "X1", "X2"], [2, 3, 2], [[], [], [1, 0]],
                        [[[0.5, 0.5]], [[0.2, 0.3, 0.5]], cpt])
    assert a.parents[2] == (0, 1)
    for s0, s1 in itertools.product(range(2), range(3)):
        assert np.array_equal(a.cpts[2][s0 * 3 + s1], cpt[s1 * 2 + s0])


def test_log_likelihood_matches_brute_force():
    net = random_network(4, max_in_degree=2, seed=5)
    x = net.sample(50, seed=2)
    joint = dict(brute_joint(net))
    expect = sum(np.log(joint[tuple(int(v) for v in x[:, s])]) for s in range(50))
    assert net.log_likelihood(x) == pytest.approx(expect, rel=1e-12)
    ds = Dataset(net.names, x, net.arities, [None] * 4)
    assert net.log_likelihood(ds) == pytest.approx(expect, rel=1e-12)
    with pytest.raises(InputError, match="outside"):
        net.log_likelihood(x + 5)
    with pytest.raises(InputError, match="shape"):
        net.log_likelihood(x[:2])


def test_empirical_frequencies_match_the_network():
    net = random_network(5, max_in_degree=2, arities=(2, 3), seed=11)
    N = 40_000
    x = net.sample(N, seed=3)
    # marginals against exact ones from the joint
    joint = brute_joint(net)
    for i in range(net.n):
        exact = np.zeros(net.arities[i])
        for s, p in joint:
            exact[s[i]] += p
        freq = np.bincount(x[i], minlength=net.arities[i]) / N
        assert np.abs(freq - exact).max() < 0.015, (i, freq, exact)
    # conditionals against the CPT rows, where a configuration has enough rows
    for i, ps in enumerate(net.parents):
        code = np.zeros(N, dtype=np.int64)
        for p in ps:
            code = code * net.arities[p] + x[p]
        for c in range(net.cpts[i].shape[0]):
            sel = x[i][code == c]
            if len(sel) >= 500:
                freq = np.bincount(sel, minlength=net.arities[i]) / len(sel)
                assert np.abs(freq - net.cpts[i][c]).max() < 4 / np.sqrt(len(sel)), (i, c)


@pytest.mark.parametrize("kwargs, match", [
    (dict(cpts=[[[0.5, 0.5]], [[0.5, 0.5]]]), "shape"),
    (dict(cpts=[[[0.5, 0.6]], [[0.5, 0.5], [0.5, 0.5]]]), "sums to"),
    (dict(cpts=[[[1.5, -0.5]], [[0.5, 0.5], [0.5, 0.5]]]), "non-negative"),
    (dict(cpts=[[[np.nan, 1.0]], [[0.5, 0.5], [0.5, 0.5]]]), "finite"),
    (dict(parents=[[1], [0]], cpts=[[[.5, .5]] * 2, [[.5, .5]] * 2]), "cycle: a -> b -> a|cycle: b -> a -> b"),
    (dict(parents=[[0], []]), "own parent"),
    (dict(parents=[[], [7]]), "out of range"),
    (dict(parents=[[], [0, 0]]), "repeated"),
    (dict(names=["a", "a"]), "duplicate"),
    (dict(arities=[2, 0]), "arity"),
    (dict(arities=[2.0, 2.0]), "integers"),
    (dict(names=[], arities=[], parents=[], cpts=[]), "at least one"),
])
def test_constructor_rejects_bad_networks(kwargs, match):
    good = dict(names=["a", "b"], arities=[2, 2], parents=[[], [0]],
                cpts=[[[0.5, 0.5]], [[0.1, 0.9], [0.8, 0.2]]])
    with pytest.raises(NetworkError, match=match):
        BayesianNetwork(**{**good, **kwargs})


def test_cpts_are_read_only():
    net = chain_net()
    with pytest.raises(ValueError):
        net.cpts[0][0, 0] = 1.0


def test_json_round_trip(tmp_path):
    net = random_network(30, arities=(2, 3, 4), seed=4)
    d = json.loads(json.dumps(net.to_dict()))
    assert BayesianNetwork.from_dict(d) == net
    for name in ("net.json", "net.json.gz"):
        net.save(tmp_path / name)
        assert BayesianNetwork.load(tmp_path / name) == net
    assert (tmp_path / "net.json.gz").read_bytes()[:2] == b"\x1f\x8b"
    assert json.loads(gzip.decompress((tmp_path / "net.json.gz").read_bytes()))["format"] == \
        "lpbn-bayesian-network"
    # parents listed in another order in the file: the CPT rows are permuted accordingly
    d2 = json.loads(json.dumps(chain_net().to_dict()))
    v = d2["variables"][2]
    v["parents"] = ["X1", "X0"]
    v["cpt"] = [v["cpt"][s0 * 3 + s1] for s1 in range(3) for s0 in range(2)]
    assert BayesianNetwork.from_dict(d2) == chain_net()


def test_load_errors(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(InputError, match="bad.json:1:2: invalid JSON"):
        BayesianNetwork.load(bad)
    d = chain_net().to_dict()
    d["variables"][2]["parents"] = ["X0", "nope"]
    bad.write_text(json.dumps(d))
    with pytest.raises(InputError, match="unknown parent 'nope' of variable X2"):
        BayesianNetwork.load(bad)
    with pytest.raises(InputError, match="no such file"):
        BayesianNetwork.load(tmp_path / "missing.json")


# ---------------------------------------------------------------------- random_network
def test_reproducible_by_seed():
    a, b = random_network(200, seed=7), random_network(200, seed=7)
    assert a == b and a != random_network(200, seed=8)
    assert np.array_equal(a.sample(300, seed=1), b.sample(300, seed=1))
    assert not np.array_equal(a.sample(300, seed=1), a.sample(300, seed=2))
    n1, d1 = random_dataset(50, 400, seed=3)
    n2, d2 = random_dataset(50, 400, seed=3)
    assert n1 == n2 == random_network(50, seed=3)
    assert np.array_equal(d1.columns, d2.columns)
    assert np.array_equal(d1.columns, n1.sample(400, seed=sample_seed_for(3)))


def test_golden_values():
    """Pins the exact output for one seed: a change here breaks reproducibility of published
    benchmarks (e.g. a numpy release changing an algorithm)."""
    net, ds = random_dataset(6, 1000, seed=0)
    assert net.parents == ((3, 5), (0, 2), (3,), (), (3, 5), (2, 3))
    assert net.arities.tolist() == [2, 2, 3, 3, 3, 3]
    assert ds.columns.sum(axis=1).tolist() == [613, 456, 862, 1, 432, 632]
    assert net.topological_order().tolist() == [3, 2, 5, 0, 1, 4]


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 60), k=st.integers(0, 4), seed=st.integers(0, 2**32 - 1))
def test_structure_properties(n, k, seed):
    net = random_network(n, max_in_degree=k, arities=(2, 3, 5), seed=seed)
    assert net.names == tuple(f"X{i}" for i in range(n))
    assert all(len(ps) <= k for ps in net.parents)
    assert all(list(ps) == sorted(set(ps)) for ps in net.parents)
    assert net.dag.is_acyclic()
    assert set(net.arities.tolist()) <= {2, 3, 5}
    for i, c in enumerate(net.cpts):
        q = int(np.prod([net.arities[p] for p in net.parents[i]]))
        assert c.shape == (q, net.arities[i])
        assert np.all(c >= 0) and np.allclose(c.sum(axis=1), 1.0, atol=1e-12)


def test_degrees_and_shuffled_order():
    net = random_network(3000, max_in_degree=3, seed=1)
    deg = np.array([len(ps) for ps in net.parents])
    assert deg.max() == 3 and abs(deg.mean() - 1.5) < 0.1
    # the index order is not a topological order: many edges go from a larger index to a smaller
    backward = sum(p > c for p, c in net.edges)
    assert 0.4 < backward / len(net.edges) < 0.6
    assert net.n == 3000 and net.num_parameters() > 0


def test_random_dataset_is_a_dataset():
    net, ds = random_dataset(20, 100, seed=2, max_in_degree=2, arities=(3,), alpha=1.0)
    assert isinstance(ds, Dataset) and ds.names == net.names
    assert ds.columns.dtype == np.int32 and ds.columns.flags.c_contiguous
    assert ds.columns.shape == (20, 100) and ds.N == 100
    assert np.array_equal(ds.arities, net.arities) and ds.arities.dtype == np.int64
    assert all(len(ps) <= 2 for ps in net.parents)


@pytest.mark.parametrize("kwargs", [
    dict(n=0), dict(n=2.5), dict(n=3, max_in_degree=-1), dict(n=3, arities=(1, 2)),
    dict(n=3, arities=()), dict(n=3, arities=(2.5,)), dict(n=3, alpha=0), dict(n=3, alpha=float("nan")),
    dict(n=3, alpha="x"), dict(n=3, max_in_degree=True),
    dict(n=200, max_in_degree=30, arities=(1000,)),   # CPTs far too large
])
def test_random_network_rejects_bad_arguments(kwargs):
    with pytest.raises(InputError):
        random_network(**kwargs)


# ---------------------------------------------------------------------- metrics
def dag(parents, names=None):
    names = names or [f"X{i}" for i in range(len(parents))]
    return DAG(names, parents)


def test_shd_hand_built_example():
    true = dag([[], [0], [1], [1, 4], []])          # 0->1->2, 1->3<-4
    learned = dag([[1], [], [1], [], [3]])          # 1->0 reversed, 1->2 ok, 1-3 missing, 3->4 reversed
    assert shd(true, learned) == 3
    c = edge_confusion(true, learned)
    assert (c["true_positive"], c["reversed"], c["missing"], c["extra"]) == (1, 2, 1, 0)
    assert c["precision"] == 1.0 and c["recall"] == pytest.approx(0.75)
    extra = dag([[], [0], [1, 0], [1, 4], []])      # one extra edge 0->2
    assert shd(true, extra) == 1 and edge_confusion(true, extra)["extra"] == 1
    assert shd(true, dag([[]] * 5)) == 4 and shd(dag([[]] * 5), dag([[]] * 5)) == 0


def test_shd_reversal_counts_once_and_names_are_matched():
    a = dag([[], [0]])
    assert shd(a, a) == 0 and shd(a, dag([[1], []])) == 1
    # the same graph with the variables listed in another order
    b = DAG(["X1", "X0"], [[1], []])
    assert shd(a, b) == 0 and moral_hamming_distance(a, b) == 0
    with pytest.raises(InputError, match="different variables"):
        shd(a, DAG(["X0", "Y"], [[], []]))
    with pytest.raises(InputError, match="both ways"):
        shd(a, dag([[1], [0]]))


def test_moral_hamming_distance():
    collider = dag([[], [0, 2], []])                 # 0 -> 1 <- 2: moral graph marries 0 and 2
    chain = dag([[], [0], [1]])                      # 0 -> 1 -> 2
    assert moral_graph(collider) == {(0, 1), (1, 2), (0, 2)}
    assert moral_hamming_distance(collider, chain) == 1
    assert shd(collider, chain) == 1
    # Markov-equivalent DAGs: positive SHD, zero moral distance
    assert shd(chain, dag([[1], [2], []])) == 2
    assert moral_hamming_distance(chain, dag([[1], [2], []])) == 0


@st.composite
def dags(draw, n=7):
    order = draw(st.permutations(range(n)))
    parents = [[] for _ in range(n)]
    for k in range(1, n):
        preds = order[:k]
        parents[order[k]] = draw(st.lists(st.sampled_from(preds), max_size=3, unique=True))
    return dag(parents)


@settings(max_examples=60, deadline=None)
@given(a=dags(), b=dags(), c=dags())
def test_shd_is_a_metric(a, b, c):
    assert shd(a, a) == 0 and moral_hamming_distance(a, a) == 0
    assert shd(a, b) == shd(b, a)
    assert shd(a, c) <= shd(a, b) + shd(b, c)
    conf = edge_confusion(a, b)
    assert conf["shd"] == conf["missing"] + conf["extra"] + conf["reversed"]
    assert conf["true_positive"] + conf["reversed"] + conf["missing"] == len(a.edges)
    assert conf["true_positive"] + conf["reversed"] + conf["extra"] == len(b.edges)
    assert moral_hamming_distance(a, b) == moral_hamming_distance(b, a)


# ---------------------------------------------------------------------- CSV and the CLI
def test_cli_round_trip(tmp_path, capsys):
    csv, js = tmp_path / "d.csv", tmp_path / "true.json"
    argv = ["sample", "--variables", "12", "--rows", "3000", "--max-in-degree", "2",
            "--arities", "2,3", "--alpha", "1", "--seed", "5", "-o", str(csv), "--network-out", str(js)]
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert "12 variables" in err and "3000 rows" in err
    net = BayesianNetwork.load(js)
    assert net == random_network(12, max_in_degree=2, arities=(2, 3), alpha=1.0, seed=5)
    expect = net.sample(3000, seed=sample_seed_for(5))
    ds = read_data(csv)
    assert ds.names == net.names
    assert np.all([len(np.unique(c)) == r for c, r in zip(expect, net.arities)])  # all states seen
    assert np.array_equal(ds.columns, expect) and np.array_equal(ds.arities, net.arities)
    # the saved network reproduces the same file; .gz output reads back the same
    gz = tmp_path / "again.csv.gz"
    assert main(["sample", "--network", str(js), "--rows", "3000", "--seed", "5", "-o", str(gz),
                 "--quiet"]) == 0
    assert capsys.readouterr().err == ""
    assert gzip.decompress(gz.read_bytes()) == csv.read_bytes()
    # another data seed: other rows from the same network
    assert main(["sample", "--network", str(js), "--rows", "3000", "--sample-seed", "9",
                 "-o", str(gz), "--quiet"]) == 0
    assert np.array_equal(read_data(gz, arities=net.arities).columns, net.sample(3000, seed=9))


def test_write_csv_general_path(tmp_path):
    rng = np.random.default_rng(0)
    cols = rng.integers(0, 1234, size=(4, 50)).astype(np.int32)
    cols[:, 0] = 1233                                 # every column reaches arity 1234
    p = tmp_path / "big.csv"
    write_csv(p, ["a", "b", "c", "d"], cols)
    assert p.read_text().splitlines()[0] == "a,b,c,d"
    ds = read_data(p, arities=[1234] * 4)
    assert np.array_equal(ds.columns, cols)
    with pytest.raises(InputError):
        write_csv(p, ["a"], cols)
    with pytest.raises(InputError):
        write_csv(p, list("abcd"), -cols)


def test_unobserved_states_are_reported(tmp_path, capsys):
    # a root with a state of probability 0 is never sampled: read_data sees fewer states
    d = chain_net().to_dict()
    d["variables"][1]["cpt"] = [[0.5, 0.0, 0.5]]
    (tmp_path / "n.json").write_text(json.dumps(d))
    out = tmp_path / "d.csv"
    assert main(["sample", "--network", str(tmp_path / "n.json"), "--rows", "200", "-o", str(out)]) == 0
    assert ("2 variables have states that were never sampled (e.g. X1 (2 of 3), X2 (4 of 6))"
            in capsys.readouterr().err)
    assert read_data(out).arities.tolist() == [2, 2, 4]
    assert read_data(out, arities=[2, 3, 6]).arities.tolist() == [2, 3, 6]


@pytest.mark.parametrize("argv", [
    ["sample", "--variables", "5", "--rows", "10"],                       # no -o
    ["sample", "--rows", "10", "-o", "{out}"],                            # no source
    ["sample", "--variables", "5", "--network", "{net}", "--rows", "10", "-o", "{out}"],
    ["sample", "--variables", "0", "--rows", "10", "-o", "{out}"],
    ["sample", "--variables", "5", "--rows", "0", "-o", "{out}"],
    ["sample", "--variables", "5", "--rows", "10", "--arities", "2,x", "-o", "{out}"],
    ["sample", "--variables", "5", "--rows", "10", "--arities", "1", "-o", "{out}"],
    ["sample", "--variables", "5", "--rows", "10", "--alpha", "0", "-o", "{out}"],
    ["sample", "--variables", "5", "--rows", "10", "--max-in-degree", "-2", "-o", "{out}"],
    ["sample", "--network", "{net}", "--rows", "10", "--alpha", "1", "-o", "{out}"],
    ["sample", "--network", "{missing}", "--rows", "10", "-o", "{out}"],
    ["sample", "--network", "{bad}", "--rows", "10", "-o", "{out}"],
    ["sample", "--variables", "5", "--rows", "10", "-o", "{nodir}"],
])
def test_cli_bad_input_exits_2(argv, tmp_path, capsys):
    chain_net().save(tmp_path / "net.json")
    (tmp_path / "bad.json").write_text('{"variables": [{"name": "a"}]}')
    subst = {"{out}": tmp_path / "o.csv", "{net}": tmp_path / "net.json",
             "{missing}": tmp_path / "missing.json", "{bad}": tmp_path / "bad.json",
             "{nodir}": tmp_path / "no" / "o.csv"}
    argv = [str(subst.get(a, a)) for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("lpbn: error:")
    assert not (tmp_path / "o.csv").exists()
