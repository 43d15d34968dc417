"""`lpbn bench smoke` runs every landed method on the smoke suite; a wrong optimum fails the build."""

import subprocess
import sys


def test_smoke_suite_is_clean(tmp_path):
    p = subprocess.run([sys.executable, "-m", "lpbn", "bench", "smoke", "--strict", "--no-plots",
                        "-o", str(tmp_path), "-q"], capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    summary = next(tmp_path.rglob("latest/summary.md")).read_text()
    assert "WRONG" not in summary.split("## Per instance")[-1]
