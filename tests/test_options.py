"""Method options declared once (issue 55): every built-in method's options are a
:class:`lpbn.options.MethodOptions` dataclass, from which come the check of ``**options``,
``lpbn.show_options`` and ``lpbn solve --help-options``."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings, strategies as st

import lpbn
from lpbn.cli import main
from lpbn.errors import InputError
from lpbn.options import MethodOptions, check_options
from lpbn.solve import BUILTIN_METHODS, available_methods, method_function, method_options, show_options
from lpbn.synthetic import random_cache

#: one value each method must refuse, and the option it names
BAD = {
    "dp": ("threads", -1),
    "brute": ("anything", 1),
    "dual": ("branching", "best"),
    "highs": ("tree", "forest"),
    "pulp-cbc": ("acyclicity", "none"),
    "bfbnb": ("heuristic", "clever"),
    "obs": ("search_share", 2.0),
    "asobs": ("start", "nowhere"),
    "race": ("delay", -1.0),
}


def _cache_file(tmp_path):
    path = tmp_path / "c.jkl"
    lpbn.write_scores(random_cache(5, seed=2, max_parents=1), path)
    return path


def test_every_method_declares_its_options_with_docs():
    """Every available method has an options dataclass whose every field has a doc, a type and
    a rule, and show_options lists each with its type, default and doc."""
    methods = [m for m in available_methods() if m in BUILTIN_METHODS]   # (other tests register stubs)
    assert set(BAD) <= set(methods) | {"pulp-cbc"}
    for name in [*methods, "k_best"]:
        if name != "k_best":
            cls = method_function(name).options_class
            assert issubclass(cls, MethodOptions) and cls.__dataclass_params__.frozen
            for f in dataclasses.fields(cls):
                assert f.metadata.get("rule") is not None, (name, f.name)
        text = show_options(name, disp=False)
        rows = method_options(name)
        for opt, kind, default, doc in rows:
            assert doc and kind, (name, opt)
            assert f"{opt} : {kind}, default {default!r}" in text
            assert doc.split()[0] in text


def test_defaults_build_and_bad_values_name_method_option_and_expectation():
    for name, (key, value) in BAD.items():
        if name not in available_methods():
            continue
        fn = method_function(name)
        check_options(name, fn, {})                        # the defaults are valid
        with pytest.raises(InputError, match=f"method {name!r}.*{key}") as err:
            check_options(name, fn, {key: value})
        assert "must be" in str(err.value) or "has no option" in str(err.value)


def test_shared_limits_are_not_options():
    with pytest.raises(InputError, match="argument of solve"):
        check_options("highs", method_function("highs"), {"time_limit": 1})


def test_user_methods_keep_the_signature_check():
    def mine(cache, control, *, depth: int = 2):
        return lpbn.solve(cache, "dp")
    lpbn.register_method("mine-test", mine)
    c = random_cache(4, seed=1, max_parents=1)
    with pytest.raises(InputError, match="has no option 'width'"):
        lpbn.solve(c, "mine-test", width=1)
    with pytest.raises(InputError, match="depth must be a non-negative integer"):
        lpbn.solve(c, "mine-test", depth=-1)
    assert "depth : default 2" in show_options("mine-test", disp=False)


@settings(max_examples=40, deadline=None)
@given(st.one_of(st.integers(-5, 40), st.floats(allow_nan=True), st.booleans(), st.text(max_size=3),
                 st.none()))
def test_a_value_is_built_exactly_when_its_rule_accepts_it(value):
    """build() accepts a value iff the field's rule does (or it is None for a None default),
    and then the dataclass holds it unchanged."""
    from lpbn.highs.options import HighsOptions
    for f in dataclasses.fields(HighsOptions):
        if f.name in ("highs_options", "start", "incumbent_feed"):
            continue
        ok = (value is None and f.default is None) or f.metadata["rule"].test(value)
        try:
            built = HighsOptions.build({f.name: value}, "highs")
        except InputError:
            assert not ok, (f.name, value)
        else:
            assert ok and getattr(built, f.name) is value


@pytest.mark.parametrize("method", ["auto", *BAD])
def test_cli_help_options(method, capsys):
    assert main(["solve", "--method", method, "--help-options"]) == 0
    out = capsys.readouterr().out
    if method == "auto":
        assert all(f"{m}\n{'=' * len(m)}" in out for m in available_methods() if m in BUILTIN_METHODS)
    else:
        assert out == show_options(method, disp=False)


def test_cli_help_options_k_best(capsys):
    assert main(["solve", "--k-best", "2", "--help-options"]) == 0
    assert "lp_bounds : bool | None, default None" in capsys.readouterr().out


@pytest.mark.parametrize("method", sorted(BAD))
def test_cli_refuses_bad_values_with_exit_2(method, tmp_path, capsys):
    key, value = BAD[method]
    text = value if isinstance(value, str) else repr(value)
    out = tmp_path / "out.json"
    rc = main(["solve", str(_cache_file(tmp_path)), "--method", method, "--option", f"{key}={text}",
               "-o", str(out)])
    assert rc == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"method {method!r}" in err and key in err
    assert not out.exists()


def test_cli_refuses_bad_k_best_option(tmp_path, capsys):
    assert main(["solve", str(_cache_file(tmp_path)), "--k-best", "2", "--option", "lp_bounds=3"]) == 2
    assert "lp_bounds must be true or false" in capsys.readouterr().err


def test_cli_needs_a_file_without_help_options(capsys):
    assert main(["solve", "--method", "dp"]) == 2
    assert "needs a score FILE" in capsys.readouterr().err
