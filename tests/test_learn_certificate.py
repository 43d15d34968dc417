"""``lpbn learn`` writes its bound certificate beside the network by default (issue 54), over the
cache it solved (written beside it too), and ``lpbn verify CACHE CERT`` checks it."""

from __future__ import annotations

import gzip
import json

import numpy as np

from lpbn.cli import main


def _data(tmp_path):
    rng = np.random.default_rng(7)
    a = rng.integers(0, 2, 300)
    b = (a ^ (rng.random(300) < 0.1)).astype(int)
    c = (b & rng.integers(0, 2, 300)).astype(int)
    d = rng.integers(0, 3, 300)
    path = tmp_path / "d.csv"
    path.write_text("A,B,C,D\n" + "".join(f"{x},{y},{z},{w}\n" for x, y, z, w in zip(a, b, c, d)))
    return str(path)


def test_learn_writes_a_certificate_that_verifies(tmp_path, capsys):
    data = _data(tmp_path)
    assert main(["learn", data, "-o", str(tmp_path / "net.bif"), "--quiet"]) == 0
    cert, cache = tmp_path / "net.cert.json.gz", tmp_path / "net.cache.jkl"
    assert cert.exists() and cache.exists()
    capsys.readouterr()
    assert main(["verify", str(cache), str(cert)]) == 0
    assert "bound verified" in capsys.readouterr().out
    # tampered: the embedded result's score
    doc = json.loads(gzip.decompress(cert.read_bytes()))
    doc["result"]["score"] += 1.0
    bad = tmp_path / "bad.cert.json"
    bad.write_text(json.dumps(doc))
    assert main(["verify", str(cache), str(bad)]) == 1


def test_learn_certificate_options(tmp_path):
    data = _data(tmp_path)
    assert main(["learn", data, "-o", str(tmp_path / "a.json"), "--quiet", "--no-certificate"]) == 0
    assert not (tmp_path / "a.cert.json.gz").exists() and not (tmp_path / "a.cache.jkl").exists()
    assert main(["learn", data, "-o", str(tmp_path / "b.dot"), "--quiet",
                 "--certificate", str(tmp_path / "proof.json")]) == 0
    assert (tmp_path / "proof.json").exists() and (tmp_path / "proof.cache.jkl").exists()
    assert main(["verify", str(tmp_path / "proof.cache.jkl"), str(tmp_path / "proof.json")]) == 0
