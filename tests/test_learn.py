"""From data to a network: lpbn.learn / lpbn learn, CPT fitting, BIF, networkx, pgmpy, draw."""

import json
import shutil

import numpy as np
import pytest

import lpbn
from lpbn.cli import main
from lpbn.errors import InputError
from lpbn.fit import fit_network
from lpbn.formats.bif import bif_identifiers, write_bif
from lpbn.network import BayesianNetwork
from lpbn.result import DAG
from lpbn.scoring import read_data

ASIA = "cran__bnlearn/data/asia.dat"


@pytest.fixture(scope="module")
def asia(instances):
    return lpbn.learn(instances / ASIA)


def tiny():
    """Three variables, 8 rows, string states; C's parent configuration (a1, b0) never occurs."""
    rows = [("a0", "b0", "x"), ("a0", "b0", "y"), ("a0", "b0", "y"), ("a0", "b1", "x"),
            ("a1", "b1", "x"), ("a1", "b1", "y"), ("a1", "b1", "y"), ("a1", "b1", "y")]
    return read_data(np.array(rows, dtype=object), names=["A", "B", "C"])


def pgmpy_cpt(cpd):
    """A pgmpy TabularCPD as an lpbn CPT: (parent configurations, states)."""
    vals = cpd.get_values()
    return vals.T


# ---------------------------------------------------------------------- fitting
def test_ml_cpts_are_the_observed_frequencies():
    ds = tiny()
    net = fit_network(DAG(ds.names, [[], [0], [0, 1]]), ds)
    assert net.state_names(0) == ("a0", "a1") and net.state_names(2) == ("x", "y")
    np.testing.assert_array_equal(net.cpts[0], [[0.5, 0.5]])
    np.testing.assert_array_equal(net.cpts[1], [[0.75, 0.25], [0.0, 1.0]])
    # rows (a0,b0), (a0,b1), (a1,b0) unseen -> uniform, (a1,b1)
    np.testing.assert_allclose(net.cpts[2], [[1 / 3, 2 / 3], [1.0, 0.0], [0.5, 0.5], [0.25, 0.75]],
                               rtol=0, atol=1e-15)


def test_bdeu_posterior_mean():
    ds = tiny()
    ess = 2.0
    net = fit_network(DAG(ds.names, [[], [0], [0, 1]]), ds, ess=ess)
    for cpt in net.cpts:
        np.testing.assert_allclose(cpt.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    a = ess / (4 * 2)                       # q = 4, r = 2 for C
    np.testing.assert_allclose(net.cpts[2][0], [(1 + a) / (3 + 2 * a), (2 + a) / (3 + 2 * a)])
    np.testing.assert_allclose(net.cpts[2][2], [0.5, 0.5])      # unseen: the prior alone
    with pytest.raises(InputError):
        fit_network(DAG(ds.names, [[], [], []]), ds, ess=0)


def test_fit_matches_variables_by_name_and_rejects_unknown_ones():
    ds = tiny()
    net = fit_network(DAG(["C", "A"], [[1], []]), ds)
    assert net.names == ("C", "A") and net.parents == ((1,), ())
    np.testing.assert_array_equal(net.cpts[0], [[0.5, 0.5], [0.25, 0.75]])
    with pytest.raises(InputError, match="'Z'"):
        fit_network(DAG(["Z"], [[]]), ds)


def test_states_in_network_json_are_optional_and_round_trip(tmp_path):
    ds = tiny()
    net = fit_network(DAG(ds.names, [[], [0], [1]]), ds)
    d = json.loads(json.dumps(net.to_dict()))
    assert d["variables"][0]["states"] == ["a0", "a1"]
    assert BayesianNetwork.from_dict(d) == net
    bare = BayesianNetwork(net.names, net.arities, net.parents, net.cpts)
    assert "states" not in bare.to_dict()["variables"][0] and bare.states is None
    assert bare.state_names(1) == ("0", "1")
    with pytest.raises(InputError, match="duplicate state name"):
        BayesianNetwork(["X"], [2], [[]], [[[0.5, 0.5]]], [["a", "a"]])
    with pytest.raises(InputError, match="1 state names for arity 2"):
        BayesianNetwork(["X"], [2], [[]], [[[0.5, 0.5]]], [["a"]])


# ---------------------------------------------------------------------- learn
def test_learn_asia(asia):
    assert asia.status == "optimal" and asia.gap <= 1e-9
    assert asia.network.dag == asia.dag and asia.network.n == 8
    assert asia.cache.meta["explore"] == "exhaustive"
    cert = asia.certificate()
    assert cert["optimal_over"] == "all DAGs" and cert["fit"] == "maximum likelihood"
    assert asia.score == pytest.approx(asia.cache.dag_score(asia.dag.parents))
    d = json.loads(json.dumps(asia.to_dict()))
    assert d["status"] == "optimal" and d["network"]["variables"][0]["name"] == "A"
    # the fitted likelihood is the best one for this DAG: BIC = LL - penalty
    ll = asia.network.log_likelihood(asia.data)
    pen = 0.5 * np.log(asia.data.N) * asia.network.num_parameters()
    assert ll - pen == pytest.approx(asia.score, rel=1e-9)


def test_learn_labels_and_bdeu_fit():
    import pandas as pd
    df = pd.DataFrame({"rain": ["no", "yes", "yes", "no"] * 25, "wet": ["dry", "wet", "wet", "dry"] * 25})
    res = lpbn.learn(df, score="bdeu", fit_ess=1.0)
    assert res.dag.edges in ([(0, 1)], [(1, 0)])
    assert res.network.state_names(0) == ("no", "yes") and res.certificate()["fit"].startswith("BDeu")
    for cpt in res.network.cpts:
        np.testing.assert_allclose(cpt.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    with pytest.raises(InputError):
        lpbn.learn(df, fit_ess=-1)


# ---------------------------------------------------------------------- BIF, networkx, pgmpy
def assert_same_as_pgmpy(net, model, variables=None, states=None):
    variables = variables or list(net.names)
    states = states or [list(net.state_names(i)) for i in range(net.n)]
    assert sorted(model.nodes()) == sorted(variables)
    assert sorted(model.edges()) == sorted((variables[p], variables[c]) for p, c in net.edges)
    for i in range(net.n):
        cpd = model.get_cpds(variables[i])
        assert cpd.variables[1:] == [variables[p] for p in net.parents[i]]
        assert cpd.state_names[variables[i]] == states[i]
        np.testing.assert_allclose(pgmpy_cpt(cpd), net.cpts[i], rtol=0, atol=1e-9)


def test_bif_round_trip_through_pgmpy(asia, tmp_path):
    pytest.importorskip("pgmpy")
    from pgmpy.readwrite import BIFReader
    path = tmp_path / "asia.bif"
    text = write_bif(asia.network, path)
    assert path.read_text() == text and text.startswith("network lpbn {")
    model = BIFReader(str(path)).get_model()
    assert model.check_model()
    assert_same_as_pgmpy(asia.network, model, *bif_identifiers(asia.network))


def test_solve_writes_bif_with_cpts_fitted_to_the_data(asia, instances, tmp_path, capsys):
    data = instances / ASIA
    cache = tmp_path / "asia.jkl"
    assert main(["score", str(data), "-o", str(cache), "--quiet"]) == 0
    out = tmp_path / "solved.bif"
    assert main(["solve", str(cache), "--format", "bif", "--data", str(data), "-o", str(out)]) == 0
    assert out.read_text() == write_bif(asia.network, None)     # same DAG and CPTs as lpbn learn
    assert main(["solve", str(cache), "--format", "bif"]) == 2
    assert "--format bif needs --data" in capsys.readouterr().err
    assert main(["solve", str(cache), "--data", str(data)]) == 2


def test_bif_names_are_sanitised_and_distinct():
    pytest.importorskip("pgmpy")
    from pgmpy.readwrite import BIFReader
    names = ["a b", "A", "a", "table2", "default", "1", "é", "x(y)", "p|q", "a_b"]
    states = [["0", "yes no", "a,b"], [")", "None"], ["-", ""], ["x", "X"], ["table", "default"],
              ["s0", "0"], ["é", "e"], ["1", "2"], ["a", "b"], ["u", "v"]]
    parents = [[], [0], [0, 1], [2], [3, 0], [4], [5, 3], [6], [7, 1], [8, 2]]
    rng = np.random.default_rng(0)
    ar = [len(s) for s in states]
    cpts = [rng.dirichlet(np.ones(ar[i]), size=int(np.prod([ar[p] for p in ps]))) for i, ps in enumerate(parents)]
    net = BayesianNetwork(names, ar, parents, cpts, states)
    var, st = bif_identifiers(net)
    assert var == ["a_b_2", "A", "a_2", "table_2", "default_", "v1", "e", "x_y_", "p_q", "a_b"]
    assert st[0] == ["s0", "yes_no", "a_b"] and st[2] == ["_", "s"] and st[5] == ["s0", "s0_2"]
    assert len({v.lower() for v in var}) == len(var)
    model = BIFReader(string=write_bif(net, None, name="my variable net")).get_model()
    assert_same_as_pgmpy(net, model, var, st)


def test_to_networkx(asia):
    pytest.importorskip("networkx")
    g = asia.dag.to_networkx()
    assert list(g.nodes) == list(asia.dag.names)
    assert sorted(g.edges) == sorted((asia.dag.names[p], asia.dag.names[c]) for p, c in asia.dag.edges)
    assert "local_score" not in g.nodes["A"]
    g2 = asia.to_networkx()
    total = sum(g2.nodes[v]["local_score"] for v in g2.nodes)
    assert total == pytest.approx(asia.score, rel=1e-12)


def test_missing_networkx_is_an_input_error(asia, monkeypatch):
    import sys
    monkeypatch.setitem(sys.modules, "networkx", None)
    with pytest.raises(InputError, match=r"lpbn\[networkx\]"):
        asia.dag.to_networkx()


def test_to_pgmpy(asia):
    pytest.importorskip("pgmpy")
    model = lpbn.to_pgmpy(asia)
    assert model.check_model()
    assert_same_as_pgmpy(asia.network, model)
    # a DAG plus data is fitted on the way; labels become state names
    ds = tiny()
    m2 = lpbn.to_pgmpy(DAG(ds.names, [[], [0], [0, 1]]), ds)
    assert m2.check_model() and m2.get_cpds("C").state_names["A"] == ["a0", "a1"]
    with pytest.raises(InputError, match="needs data"):
        lpbn.to_pgmpy(asia.dag)


# ---------------------------------------------------------------------- CLI
def test_cli_learn_outputs(instances, tmp_path, capsys):
    data = str(instances / ASIA)
    assert main(["learn", data, "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "status:       optimal (over all DAGs)" in out and "D <- B, E" in out
    assert main(["learn", data, "-o", str(tmp_path / "n.json")]) == 0
    err = capsys.readouterr().err
    assert "upper bound:" in err and "gap:" in err and "method:" in err
    d = json.loads((tmp_path / "n.json").read_text())
    assert d["certificate"]["status"] == "optimal" and d["certificate"]["scoring"]["score"] == "bic"
    net = BayesianNetwork.load(tmp_path / "n.json")
    assert net.dag.parent_names()["D"] == ["B", "E"]
    assert main(["learn", data, "-o", str(tmp_path / "n.bif"), "--quiet", "--fit-ess", "1"]) == 0
    assert (tmp_path / "n.bif").read_text().startswith("network lpbn {")
    assert main(["learn", data, "-o", str(tmp_path / "n.dot"), "--quiet", "--max-parents", "1"]) == 0
    assert (tmp_path / "n.dot").read_text().startswith('digraph "lpbn"')
    assert main(["learn", data, "-o", "-", "--format", "bif", "--quiet"]) == 0
    assert "probability ( D | B, E ) {" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [
    ["learn", "{data}", "-o", "{tmp}/net.xyz"],
    ["learn", "{data}", "-o", "-"],
    ["learn", "{tmp}/missing.csv"],
    ["learn", "{data}", "--fit-ess", "0"],
    ["learn", "{data}", "--method", "nope"],
    ["draw", "{tmp}/missing.json", "-o", "{tmp}/g.svg"],
    ["draw", "{tmp}/nodag.json", "-o", "{tmp}/g.svg"],
    ["draw", "{tmp}/nodag.json", "-o", "{tmp}/g.gif"],
])
def test_cli_bad_input_exits_2(argv, instances, tmp_path, capsys):
    (tmp_path / "nodag.json").write_text('{"status": "infeasible", "parents": null}')
    argv = [a.replace("{data}", str(instances / ASIA)).replace("{tmp}", str(tmp_path)) for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("lpbn: error:")
    assert not (tmp_path / "net.xyz").exists() and not (tmp_path / "g.svg").exists()


def _draw_backend() -> str | None:
    import importlib.util
    if shutil.which("dot"):
        return "dot"
    if all(importlib.util.find_spec(m) for m in ("matplotlib", "networkx")):
        return "matplotlib"
    return None


@pytest.mark.parametrize("source", ["solve", "learn"])
def test_draw_svg(source, instances, tmp_path, capsys):
    if _draw_backend() is None:
        pytest.skip("neither Graphviz's dot nor matplotlib + networkx is installed")
    res = tmp_path / "r.json"
    if source == "solve":
        assert main(["solve", str(instances / "alisterl__eBNSL/scores/wine.BIC.3"), "--format", "json",
                     "-o", str(res)]) == 0
    else:
        assert main(["learn", str(instances / ASIA), "-o", str(res), "--quiet"]) == 0
    assert main(["draw", str(res), "-o", str(tmp_path / "g.svg")]) == 0
    svg = (tmp_path / "g.svg").read_text()
    assert "<svg" in svg and svg.rstrip().endswith("</svg>")
