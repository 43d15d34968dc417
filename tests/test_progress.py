"""Progress display (tqdm): plain lines in logs, the bench's run lines counted."""

from __future__ import annotations

import io

from lpbn.bench.progress import Progress
from lpbn.scoring.parallel import progress_bar


def test_scoring_progress_in_a_log_prints_the_meter_as_lines(capsys):
    bar = progress_bar("scoring")
    for done in range(1, 4):
        bar(done, 3, f"v{done}")
    err = capsys.readouterr().err
    assert "\r" not in err                      # no redrawn bar in a log
    assert err.splitlines()[-1].startswith("scoring: 100%")
    assert "3/3" in err and "v3" in err


def test_bench_progress_counts_runs_in_a_log():
    out = io.StringIO()
    p = Progress(2, stream=out)
    p.note("warming up")
    p.done({"method": "dp", "instance": "asia", "status": "optimal", "seconds": 0.5, "score": -1.0})
    p.done({"method": "dual", "instance": "asia", "status": "time_limit", "seconds": 5.0,
            "score": -1.0, "gap": 0.01})
    p.close()
    lines = out.getvalue().splitlines()
    assert lines[0] == "  warming up"
    assert lines[1].startswith("[1/2] dp") and lines[2].startswith("[2/2] dual")
    assert "gap 1.000%" in lines[2]


def test_disabled_progress_prints_nothing():
    out = io.StringIO()
    p = Progress(1, enabled=False, stream=out)
    p.done({"method": "dp", "instance": "asia", "status": "optimal", "seconds": 0.5})
    p.close()
    assert out.getvalue() == ""
