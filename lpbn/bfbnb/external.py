"""External memory for the frontier BFBnB search (Malone et al. 2011, §5.4–5.5).

* :class:`TempArea` -- a private temporary directory, removed on success, error and
  interrupt (it is a context manager; the search always runs inside ``with``).
* :class:`Layer` -- one layer of the order graph (keys sorted in combinadic order, i.e.
  ascending uint64 masks -- colex order of k-subsets -- and their g scores), either in
  RAM or in a file streamed in chunks.
* :class:`LayerBuilder` -- the next layer's open list: an in-RAM hash table (duplicates
  detected in RAM first); when it would exceed its share of ``memory_limit`` it is
  sorted and spilled to a run file, and at the end of the layer all runs are merged
  with delayed duplicate detection (best g per node kept).
* :class:`ReconFiles` -- per-layer records (node, leaf's chosen candidate) written to
  disk once a layer is final, used to reconstruct the optimal DAG (§5.5).

Memory model (bytes, ``M = memory_limit``): hash table ≤ 0.35·M (20 B per slot, load
≤ 0.7), the current layer is kept in RAM only when it needs ≤ 0.2·M (16 B per node),
else it is streamed from disk; sort/merge temporaries ≤ ~0.3·M.  Everything else
(interpreter, numba, the score cache) is the constant on top of ``M``.
"""

from __future__ import annotations

import os
import shutil
import tempfile

import numpy as np

from . import kernels as K

#: generated successor records of a spill run: node, g, chosen candidate (global index)
GEN = np.dtype([("k", "<u8"), ("g", "<f8"), ("c", "<i4")])
#: nodes of a layer kept on disk
NODE = np.dtype([("k", "<u8"), ("g", "<f8")])
#: reconstruction records (§5.5): node and the candidate of its leaf
RECON = np.dtype([("k", "<u8"), ("c", "<i4")])

_WRITE_CHUNK = 1 << 18


class TempArea:
    """A private temporary directory under ``tmp_dir`` (or the system default)."""

    def __init__(self, tmp_dir: str | os.PathLike | None = None):
        if tmp_dir is not None:
            os.makedirs(tmp_dir, exist_ok=True)
        self.path = tempfile.mkdtemp(prefix="lpbn-bfbnb-", dir=tmp_dir)
        self.bytes_written = 0

    def file(self, name: str) -> str:
        return os.path.join(self.path, name)

    def cleanup(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)

    def disk_usage(self) -> int:
        total = 0
        for entry in os.scandir(self.path):
            try:
                total += entry.stat().st_size
            except OSError:
                pass
        return total

    def __enter__(self) -> "TempArea":
        return self

    def __exit__(self, *exc) -> None:
        self.cleanup()


class Layer:
    """Nodes of one order-graph layer, sorted by key, in RAM or in a NODE file."""

    def __init__(self, count: int, keys: np.ndarray | None = None, g: np.ndarray | None = None,
                 path: str | None = None):
        self.count = int(count)
        self.keys = keys
        self.g = g
        self.path = path

    @property
    def in_memory(self) -> bool:
        return self.keys is not None

    def chunks(self, size: int):
        """Yield ``(keys, g)`` chunks of at most ``size`` nodes, in order."""
        if self.in_memory:
            for a in range(0, self.count, size):
                yield self.keys[a:a + size], self.g[a:a + size]
            return
        with open(self.path, "rb") as fh:
            done = 0
            while done < self.count:
                rec = np.fromfile(fh, dtype=NODE, count=min(size, self.count - done))
                if len(rec) == 0:
                    raise OSError(f"{self.path}: layer file is truncated")
                done += len(rec)
                yield np.ascontiguousarray(rec["k"]), np.ascontiguousarray(rec["g"])

    def release(self) -> None:
        self.keys = self.g = None
        if self.path is not None:
            try:
                os.remove(self.path)
            except FileNotFoundError:
                pass
            self.path = None


class ReconFiles:
    """Per-layer reconstruction records (§5.5), sorted by node key."""

    def __init__(self, area: TempArea):
        self.area = area
        self.counts: dict[int, int] = {}

    def path(self, layer: int) -> str:
        return self.area.file(f"recon_{layer:02d}.bin")

    def open(self, layer: int):
        self.counts[layer] = 0
        return open(self.path(layer), "wb")

    def append(self, fh, layer: int, keys: np.ndarray, cand: np.ndarray) -> None:
        rec = np.empty(len(keys), dtype=RECON)
        rec["k"] = keys
        rec["c"] = cand
        rec.tofile(fh)
        self.counts[layer] += len(keys)
        self.area.bytes_written += rec.nbytes

    def lookup(self, layer: int, key: int) -> int:
        """Candidate recorded for node ``key`` of ``layer`` (binary search on disk)."""
        count = self.counts.get(layer, 0)
        if count == 0:
            raise KeyError(key)
        mm = np.memmap(self.path(layer), dtype=RECON, mode="r", shape=(count,))
        try:
            lo, hi = 0, count
            while lo < hi:
                mid = (lo + hi) // 2
                if int(mm[mid]["k"]) < key:
                    lo = mid + 1
                else:
                    hi = mid
            if lo == count or int(mm[lo]["k"]) != key:
                raise KeyError(key)
            return int(mm[lo]["c"])
        finally:
            del mm


def _pow2_at_least(x: int) -> int:
    return 1 << max(0, int(x - 1).bit_length())


class LayerBuilder:
    """Open list of the next layer: RAM hash table + sorted spill runs (§5.4)."""

    def __init__(self, area: TempArea, layer: int, memory_limit: int, expected: int):
        self.area = area
        self.layer = layer
        cmax = max(1024, _pow2_at_least(int(0.35 * memory_limit / 20) + 1) // 2)
        self.cap_max = cmax
        cap = min(cmax, max(1024, _pow2_at_least(int(expected / 0.7) + 1)))
        self._alloc(cap)
        self.state = np.zeros(4, dtype=np.int64)      # count, generated, pruned, infeasible
        self.fstate = np.full(2, -np.inf)              # max kept f, max pruned f
        self.runs: list[tuple[int, int]] = []          # (first record, length) in the run file
        self.run_path = area.file(f"runs_{layer:02d}.bin")
        self.run_records = 0
        self.spills = 0
        self.merge_memory = max(1 << 14, int(0.15 * memory_limit))

    def _alloc(self, cap: int) -> None:
        self.cap = cap
        self.keys = np.zeros(cap, dtype=np.uint64)
        self.g = np.empty(cap, dtype=np.float64)
        self.cand = np.empty(cap, dtype=np.int32)
        self.shift = np.uint64(64 - (cap.bit_length() - 1))
        self.max_count = int(0.7 * cap)

    @property
    def count(self) -> int:
        return int(self.state[0])

    def make_room(self, needed: int) -> None:
        """Grow the table (up to its memory share) or spill it so ``needed`` more fit."""
        while self.count + needed > self.max_count and self.cap < self.cap_max:
            old = (self.keys, self.g, self.cand)
            self._alloc(self.cap * 2)
            K.rehash(*old, self.keys, self.g, self.cand, self.shift)
            del old
        if self.count + needed > self.max_count:
            self.spill()

    def spill(self) -> None:
        """Sort the table's entries by key and append them as one run (writeTempFile)."""
        c = K.compact(self.keys, self.g, self.cand)
        if c == 0:
            return
        order = np.argsort(self.keys[:c], kind="quicksort")
        with open(self.run_path, "ab") as fh:
            for a in range(0, c, _WRITE_CHUNK):
                idx = order[a:a + _WRITE_CHUNK]
                rec = np.empty(len(idx), dtype=GEN)
                rec["k"] = self.keys[idx]
                rec["g"] = self.g[idx]
                rec["c"] = self.cand[idx]
                rec.tofile(fh)
                self.area.bytes_written += rec.nbytes
        del order
        self.runs.append((self.run_records, c))
        self.run_records += c
        self.spills += 1
        self.keys[:] = 0
        self.state[0] = 0

    def finish(self, recon: ReconFiles, ram_nodes: int, chunk: int) -> Layer:
        """Final, sorted, duplicate-free layer (mergeTempFiles); writes its recon records."""
        fh_recon = recon.open(self.layer)
        try:
            if not self.runs:
                return self._finish_in_ram(recon, fh_recon)
            self.spill()
            self.keys = self.g = self.cand = None
            return self._merge(recon, fh_recon, ram_nodes, chunk)
        finally:
            fh_recon.close()

    def _finish_in_ram(self, recon: ReconFiles, fh_recon) -> Layer:
        c = K.compact(self.keys, self.g, self.cand)
        order = np.argsort(self.keys[:c], kind="quicksort")
        for a in range(0, c, _WRITE_CHUNK):
            idx = order[a:a + _WRITE_CHUNK]
            recon.append(fh_recon, self.layer, self.keys[idx], self.cand[idx])
        keys = self.keys[:c][order]
        g = self.g[:c][order]
        self.keys = self.g = self.cand = None
        return Layer(c, keys=keys, g=g)

    def _merge(self, recon: ReconFiles, fh_recon, ram_nodes: int, chunk: int) -> Layer:
        """K-way merge of the sorted runs with delayed duplicate detection."""
        nruns = len(self.runs)
        per_run = max(256, self.merge_memory // (3 * GEN.itemsize * nruns))
        pos = [start for start, _ in self.runs]
        end = [start + length for start, length in self.runs]
        bufs: list[np.ndarray | None] = [None] * nruns
        out_path = self.area.file(f"layer_{self.layer:02d}.bin")
        total = 0
        maxkey = np.uint64(0xFFFFFFFFFFFFFFFF)
        with open(self.run_path, "rb") as fin, open(out_path, "wb") as fout:
            while True:
                for r in range(nruns):
                    if (bufs[r] is None or len(bufs[r]) == 0) and pos[r] < end[r]:
                        fin.seek(pos[r] * GEN.itemsize)
                        cnt = min(per_run, end[r] - pos[r])
                        bufs[r] = np.fromfile(fin, dtype=GEN, count=cnt)
                        if len(bufs[r]) != cnt:
                            raise OSError(f"{self.run_path}: run file is truncated")
                        pos[r] += cnt
                live = [r for r in range(nruns) if bufs[r] is not None and len(bufs[r])]
                if not live:
                    break
                safe = maxkey
                for r in live:
                    if pos[r] < end[r]:
                        safe = min(safe, bufs[r]["k"][-1])
                parts = []
                for r in live:
                    b = bufs[r]
                    t = int(np.searchsorted(b["k"], safe, side="right"))
                    if t:
                        parts.append(b[:t])
                        bufs[r] = b[t:]
                batch = np.concatenate(parts)
                order = np.argsort(batch["k"], kind="stable")
                keys = np.ascontiguousarray(batch["k"][order])
                g = np.ascontiguousarray(batch["g"][order])
                cand = np.ascontiguousarray(batch["c"][order])
                del batch, order, parts
                c = K.dedupe_sorted(keys, g, cand)
                rec = np.empty(c, dtype=NODE)
                rec["k"] = keys[:c]
                rec["g"] = g[:c]
                rec.tofile(fout)
                self.area.bytes_written += rec.nbytes
                recon.append(fh_recon, self.layer, keys[:c], cand[:c])
                total += c
        os.remove(self.run_path)
        if total <= ram_nodes:
            rec = np.fromfile(out_path, dtype=NODE)
            os.remove(out_path)
            return Layer(total, keys=np.ascontiguousarray(rec["k"]), g=np.ascontiguousarray(rec["g"]))
        return Layer(total, path=out_path)
