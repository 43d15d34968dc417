"""One order-graph layer expanded by several threads, with the serial run's output.

The serial expansion (:func:`lpbn.bfbnb.kernels.merge_expand`) merges the n per-leaf
successor streams of layer l into layer l+1 in ascending key order (Malone et al. 2011,
§5.4).  Split the keys of layer l+1 by their top ``b`` bits (the relabelled variables
``lo = n - b .. n - 1``): block ``H`` holds the successors ``S = U ∪ {X}`` whose top bits are
``H``, a contiguous range of keys, so the blocks in ascending ``H`` concatenate to the
serial layer.  Which ``U`` feed block ``H`` is known without expanding anything: through a
low leaf ``X < lo``, the ``U`` whose top bits are ``H``; through a top leaf ``X = lo + t``
with bit ``t`` in ``H``, the ``U`` whose top bits are ``H`` without it; no others.  Layer l
is sorted, so each of these is a contiguous range of it (a binary search), and one call of
the same merge kernel over those ranges (per-stream ``bpos``/``blen``) yields block ``H``
record for record as the serial merge does: the same records meet in the same stream order,
so ties keep the same leaf.  The blocks are independent; threads take them in turn (the
kernel releases the GIL) and the main thread writes them out in order, so layer files,
statistics and the reconstructed DAG are the serial run's, whatever the thread count.

Only layers held in RAM are split (a layer on disk streams through per-leaf buffers, which
this would multiply), and only those of at least :data:`PARALLEL_MIN_LAYER` nodes.
"""

from __future__ import annotations

import threading
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait

import numpy as np

from . import kernels as K
from ..tuning import (BFBNB_PARALLEL_MIN_LAYER as PARALLEL_MIN_LAYER, BFBNB_BLOCK_BITS as BLOCK_BITS,
                      BFBNB_QUEUE as QUEUE, BFBNB_POPS as POPS, BFBNB_POLL as _POLL)


def block_streams(keys: np.ndarray, n: int, b: int) -> tuple[np.ndarray, np.ndarray]:
    """``(start, stop)``, each of shape (2^b, n): the range of layer ``keys`` (sorted) that
    stream X reads for block H (see the module docstring); empty ranges are (0, 0)."""
    lo = n - b
    nb = 1 << b
    edges = np.searchsorted(keys, np.arange(nb + 1, dtype=np.uint64) << np.uint64(lo))
    start = np.zeros((nb, n), dtype=np.int64)
    stop = np.zeros((nb, n), dtype=np.int64)
    hs = np.arange(nb)
    start[:, :lo] = edges[hs][:, None]
    stop[:, :lo] = edges[hs + 1][:, None]
    for t in range(b):
        has = (hs >> t) & 1 == 1
        src = hs[has] ^ (1 << t)
        start[has, lo + t] = edges[src]
        stop[has, lo + t] = edges[src + 1]
    return start, stop


class LayerBlocks:
    """Expands layers in blocks on ``workers`` threads (one pool for the whole search)."""

    def __init__(self, workers: int):
        self.workers = workers
        self.pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="lpbn-bfbnb")

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)

    def usable(self, count: int, n: int) -> bool:
        return self.workers > 1 and count >= PARALLEL_MIN_LAYER and n >= 2

    def expand(self, keys, g, out, n: int, rl, scores, threshold, output_cap: int, control, totals):
        """Build the next layer from ``keys``/``g`` (in RAM) into ``out``; returns
        ``(fstate, stop status)`` as the serial ``_build_layer`` does."""
        b = min(BLOCK_BITS, n - 1)
        start, stop = block_streams(keys, n, b)
        halt = threading.Event()
        args = (keys, g, n, rl, scores, threshold, output_cap, halt)
        pending: dict[int, Future] = {h: self.pool.submit(_block, h, start[h], stop[h], *args)
                                      for h in range(len(start))}
        state = np.zeros(4, dtype=np.int64)
        fstate = np.full(2, -np.inf)
        status = None
        out.open_write()
        nxt = 0
        try:
            while nxt < len(start):
                done, _ = wait([pending[nxt]], timeout=_POLL, return_when=FIRST_COMPLETED)
                if not done:
                    status = control.should_stop(nodes=int(totals[0] + state[0]))
                    if status:
                        break
                    continue
                chunks, st, fs = pending.pop(nxt).result()
                for ok, og, oc in chunks:
                    out.append(ok, og, oc)
                state += st
                fstate = np.maximum(fstate, fs)
                nxt += 1
        finally:
            halt.set()
            for fut in pending.values():
                fut.cancel()
            wait(list(pending.values()))
        totals += state
        return fstate, status


class MergeScratch:
    """The merge kernel's working arrays (``K.merge_expand``'s arguments after the threshold):
    per-stream successor queues, an output buffer of ``cap`` records and the counters."""

    def __init__(self, n: int, cap: int):
        self.qk = np.zeros((n, QUEUE), dtype=np.uint64)
        self.qg = np.zeros((n, QUEUE))
        self.qc = np.zeros((n, QUEUE), dtype=np.int32)
        self.qh = np.zeros(n, dtype=np.int64)
        self.qn = np.zeros(n, dtype=np.int64)
        self.hstate = np.zeros(n, dtype=np.int8)
        self.ok = np.empty(cap, dtype=np.uint64)
        self.og = np.empty(cap)
        self.oc = np.empty(cap, dtype=np.int32)
        self.ocount = np.zeros(1, dtype=np.int64)
        self.state = np.zeros(4, dtype=np.int64)
        self.fstate = np.full(2, -np.inf)

    def args(self) -> tuple:
        return (self.qk, self.qg, self.qc, self.qh, self.qn, self.hstate, self.ok, self.og, self.oc,
                self.ocount, self.state, self.fstate, POPS)


def _block(h, bpos, blen, keys, g, n, rl, scores, threshold, output_cap, halt):
    """Block ``h``'s records as chunks ``(keys, g, cand)``, with its counters (run in a thread)."""
    count = len(keys)
    bk = np.broadcast_to(keys, (n, count))
    bg = np.broadcast_to(g, (n, count))
    bpos = bpos.copy()
    blen = blen.copy()
    bdone = np.ones(n, dtype=np.bool_)
    sc = MergeScratch(n, int(max(64, min(output_cap, int(np.sum(blen - bpos))))))
    ok, og, oc, ocount, state, fstate = sc.ok, sc.og, sc.oc, sc.ocount, sc.state, sc.fstate
    chunks = []
    while True:
        r = K.merge_expand(bk, bg, blen, bpos, bdone, n, rl.woff, rl.bv, rl.starts, scores,
                           rl.group_lo, rl.group_mask, rl.table_off, rl.tables, threshold, *sc.args())
        if r == K.OUTPUT_FULL:
            c = int(ocount[0]) - 1
            chunks.append((ok[:c].copy(), og[:c].copy(), oc[:c].copy()))
            ok[0], og[0], oc[0] = ok[c], og[c], oc[c]
            ocount[0] = 1
        elif r == K.DONE:
            c = int(ocount[0])
            chunks.append((ok[:c], og[:c], oc[:c]))
            return chunks, state, fstate
        elif r >= 0:                # every range is in RAM: a refill cannot be asked for
            raise AssertionError(f"block {h}: stream {r} asked for a refill")
        if halt.is_set():
            return chunks, state, fstate
