"""Progress display on stderr: one line per finished run and an overall bar.

On a terminal tqdm draws the bar as a live last line (refreshed twice a second so the elapsed
time moves while a long run is going) and the finished-run lines scroll above it; otherwise
(CI logs) each finished-run line starts with a ``[k/N]`` count, so logs stay readable.
"""

from __future__ import annotations

import sys
import threading
from typing import IO, Any


def format_seconds(x: Any) -> str:
    if x is None:
        return "-"
    x = float(x)
    return f"{x:.3f}s" if x < 10 else f"{x:.1f}s"


class Progress:
    """Counts finished runs out of ``total`` and prints them."""

    def __init__(self, total: int, enabled: bool = True, stream: IO[str] | None = None):
        self.total = max(total, 0)
        self.count = 0
        self.enabled = enabled
        self.stream = stream or sys.stderr
        self.tty = enabled and hasattr(self.stream, "isatty") and self.stream.isatty()
        self.lock = threading.Lock()
        self._stop = threading.Event()
        self._ticker = None
        self._bar = None
        if self.tty:
            from tqdm import tqdm
            self._bar = tqdm(total=self.total, unit="run", file=self.stream, dynamic_ncols=True)
            self._ticker = threading.Thread(target=self._tick, daemon=True)
            self._ticker.start()

    def _write(self, line: str) -> None:
        if not self.enabled:
            return
        with self.lock:
            if self._bar is not None:
                self._bar.write(line, file=self.stream)
            else:
                self.stream.write(line + "\n")
                self.stream.flush()

    def note(self, text: str) -> None:
        self._write(f"  {text}")

    def done(self, row: dict[str, Any]) -> None:
        """Count one finished run and print its line."""
        with self.lock:
            self.count += 1
            if self._bar is not None:
                self._bar.update(1)
        status = row.get("status", "")
        check = row.get("check") or ""
        score = row.get("score")
        gap = row.get("gap")
        parts = [f"{row['method']:<10}", f"{row['instance'][:34]:<34}", f"{status:<10}",
                 f"{format_seconds(row.get('seconds')):>8}"]
        if score is not None:
            parts.append(f"score {score:.6f}")
        if gap is not None and status != "optimal":
            parts.append(f"gap {gap:.3%}")
        if check == "WRONG" or row.get("problems"):
            parts.append("WRONG: " + "; ".join(row.get("problems") or []))
        elif status in ("crash", "timeout", "memout", "error", "refused", "skipped", "absent"):
            parts.append(str(row.get("message", ""))[:120])
        prefix = "" if self.tty else f"[{self.count:>{len(str(self.total))}}/{self.total}] "
        self._write(prefix + "  ".join(parts))

    def _tick(self) -> None:
        while not self._stop.wait(0.5):
            with self.lock:
                self._bar.refresh()

    def close(self) -> None:
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join(timeout=1)
        if self._bar is not None:
            self._bar.close()
