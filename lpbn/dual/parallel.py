"""Parallel subtrees of the dual branch and bound (``method="dual", workers=W``).

The branching of Jaakkola et al. 2010, §6 splits the DAGs into subtrees that are bounded
independently: any open node can be searched anywhere, as long as every process prunes against
the best DAG found by any.
After the root (serial: one LP), :class:`SubtreeExchange` forks ``W - 1`` workers; each runs the
same best-first loop (:meth:`lpbn.dual.bnb.BranchAndBound._search`) over its own open nodes, with
its own copy of the state (clusters, λ, LP), and they share

- the **incumbent**: a DAG (candidate indices over the first cache, so reduced-cost fixings that
  rebuilt one process's cache do not matter) and its score, in shared memory;
- **work**: a worker whose heap runs dry marks itself idle; a busy worker with two or more open
  nodes hands it its second-best node (decisions, bound, depth, λ and the clusters separated
  since the fork that carry λ > 0, so the node's bound is the same on arrival);
- **bounds**: each worker publishes the highest bound among its open nodes (and those it pruned
  as closed), and a node in transit is counted in its receiver's slot until it arrives, so the
  global upper bound any process reports is valid at every moment.

The search ends when every worker is idle with no node in transit (then the best DAG is
optimal), or on the first worker's stop (time limit, signal, node or gap limit), after which each
worker reports the bound of the nodes it still holds.  A worker that dies leaves its last
published bound in force (valid: bounds only fall), so the answer stays correct, not optimal.

Node order across workers depends on timing: the optimal *score* is the serial search's, but
when several DAGs reach it, which one is returned may differ from run to run.  Linux only
(fork); ``certificate`` keeps the search serial (the tree is recorded by one process).
"""

from __future__ import annotations

import heapq
import math
import os
import queue
import sys
import time
from typing import Any

import numpy as np

from ..workers import Worker
from .branching import Node
from ..tuning import DUAL_IDLE_POLL as IDLE_POLL, DUAL_REPORT_GRACE as REPORT_GRACE

#: Stop statuses shared between the workers (by position + 1; 0 = running).
STOP_REASONS = ("time_limit", "interrupted", "gap_limit", "node_limit", "superseded", "memory_limit")


def stop_code(status: str) -> int:
    """The shared code of a stop status (an unknown one stops as ``"interrupted"``)."""
    return STOP_REASONS.index(status) + 1 if status in STOP_REASONS else 2


def stop_reason(code: int) -> str | None:
    return STOP_REASONS[code - 1] if code else None


def can_fork() -> bool:
    return sys.platform.startswith("linux")


class SubtreeExchange:
    """Shared memory and queues between the W processes of one parallel search (see module
    docstring); ``me`` is this process's worker number (0 = the process that called solve)."""

    def __init__(self, workers: int, n_base: int, fork_k: int):
        import multiprocessing as mp
        ctx = self.ctx = mp.get_context("fork")
        self.W = workers
        self.me = 0
        self.fork_k = fork_k                         # clusters every process had at the fork
        self.lock = ctx.Lock()
        self.idle = ctx.RawArray("b", workers)
        self.stop = ctx.RawValue("b", 0)
        self.bound = ctx.RawArray("d", [-math.inf] * workers)        # published open bounds
        self.slot_busy = ctx.RawArray("b", workers)                  # a node in transit to w
        self.slot_bound = ctx.RawArray("d", [-math.inf] * workers)
        self.inc_score = ctx.RawValue("d", -math.inf)
        self.inc_choice = ctx.RawArray("q", max(n_base, 1))
        self.inc_version = ctx.RawValue("q", 0)
        self.n_base = n_base
        self.seen = 0
        self.queues = [ctx.Queue() for _ in range(workers)]
        self.procs: list[Worker] = []              # lpbn.workers: fork, poll, reap
        self.parent = os.getpid()

    # ------------------------------------------------------------------ incumbent
    def publish(self, score: float, base_choice: np.ndarray) -> None:
        """Offer a DAG (first-cache candidate indices) to every process."""
        with self.lock:
            if score > self.inc_score.value:
                np.frombuffer(self.inc_choice, dtype=np.int64)[:self.n_base] = base_choice
                self.inc_score.value = score
                self.inc_version.value += 1
                self.seen = self.inc_version.value

    def take(self) -> tuple[float, np.ndarray] | None:
        """The shared DAG when it changed since the last look, else None."""
        if self.inc_version.value == self.seen:
            return None
        with self.lock:
            self.seen = self.inc_version.value
            return float(self.inc_score.value), np.frombuffer(self.inc_choice, dtype=np.int64)[:self.n_base].copy()

    # ------------------------------------------------------------------ bounds
    def set_bound(self, value: float) -> None:
        self.bound[self.me] = value

    def others_bound(self) -> float:
        """Highest bound held by the other processes or in transit.  Read under the lock: a
        node's bound moves between a slot and a process's published bound inside the lock
        (:meth:`give`, :meth:`receive`), so a reader never misses it on the way."""
        out = -math.inf
        with self.lock:
            for w in range(self.W):
                if w != self.me:
                    out = max(out, self.bound[w])
                if self.slot_busy[w]:
                    out = max(out, self.slot_bound[w])
        return out

    # ------------------------------------------------------------------ work
    def hungry(self) -> int | None:
        """An idle worker with no node on its way, or None (read without the lock: a hint)."""
        for w in range(self.W):
            if w != self.me and self.idle[w] and not self.slot_busy[w]:
                return w
        return None

    def give(self, w: int, node: Node, state: Any) -> bool:
        """Send ``node`` to idle worker ``w`` (False when another process got there first)."""
        with self.lock:
            if not self.idle[w] or self.slot_busy[w]:
                return False
            self.slot_busy[w] = 1
            self.slot_bound[w] = node.bound
        lam = np.asarray(node.lam, dtype=np.float64)
        k0 = min(self.fork_k, len(lam))
        extra = np.arange(k0, len(lam))
        extra = extra[lam[extra] > 0]
        msg = (node.bound, node.depth, node.decisions, lam[:k0].copy(), state.cbits[extra].copy(),
               state.ck[extra].copy(), lam[extra].copy())
        self.queues[w].put(msg)
        return True

    def receive(self, state: Any, seq: int, pruned: float) -> Node | None:
        """Wait briefly for a node sent here; map its clusters into ``state`` (adding the ones
        it lacks) and return it as a Node of this process."""
        try:
            bound, depth, decisions, lam0, bits, ks, lam_x = self.queues[self.me].get(timeout=IDLE_POLL)
        except queue.Empty:
            return None
        ids = []
        for row, k in zip(bits, ks):
            key = row.tobytes() if int(k) == 1 else row.tobytes() + bytes([int(k)])
            if key not in state._keys:
                state.add_cluster_bits(row, int(k))
            ids.append(state._keys[key])
        lam = np.zeros(state.K)
        lam[:len(lam0)] = lam0
        if ids:
            lam[np.asarray(ids, dtype=np.int64)] = lam_x
        with self.lock:
            self.idle[self.me] = 0
            self.bound[self.me] = max(pruned, bound)
            self.slot_busy[self.me] = 0
        return Node(-bound, seq, bound, decisions, lam, depth)

    def go_idle(self, pruned: float) -> None:
        with self.lock:
            self.idle[self.me] = 1
            self.bound[self.me] = pruned

    def finished(self) -> bool:
        """Every worker idle and no node in transit: the search is over."""
        with self.lock:
            return all(self.idle[w] for w in range(self.W)) and not any(self.slot_busy[w] for w in range(self.W))

    def request_stop(self, code: int) -> None:
        """Stop every worker (the first stop's status is the one kept)."""
        with self.lock:
            if not self.stop.value:
                self.stop.value = code

    def lost_worker(self) -> bool:
        """In the first process: a worker ended while the search goes on (it failed)."""
        return any(not p.alive() for p in self.procs)

    def watch(self) -> str | None:
        """The shared stop status, for :attr:`lpbn.control.SolveControl.watch`; a worker whose
        first process is gone stops as ``"interrupted"``."""
        if self.me and os.getppid() != self.parent:
            return "interrupted"
        return stop_reason(self.stop.value)

    # ------------------------------------------------------------------ processes
    def start(self, target) -> None:
        """Fork workers 1..W-1 (:class:`lpbn.workers.Worker`), each running ``target(w)`` (idle
        until given a node) and sending its report back."""
        for w in range(1, self.W):
            self.idle[w] = 1
        for w in range(1, self.W):
            self.procs.append(Worker(self._run, target, w, name=f"dual worker {w}").start())

    def _run(self, target, w: int, conn) -> None:
        self.me = w
        for q in self.queues:           # a node left unread must not hold this process's exit
            q.cancel_join_thread()
        try:
            report = target(w)
        except BaseException as e:            # noqa: BLE001 - reported, the bound stays published
            report = {"worker": w, "error": f"{type(e).__name__}: {e}"}
        conn.send(report)
        conn.close()

    def collect(self) -> list[dict[str, Any]]:
        """The workers' reports (after the search here ended, within REPORT_GRACE seconds in
        all); a missing one is ``{"worker": w, "error": ...}`` and its last published bound
        stays in force.  Every worker is then reaped (:meth:`lpbn.workers.Worker.reap`)."""
        deadline = time.perf_counter() + REPORT_GRACE
        out = []
        for w, worker in enumerate(self.procs, start=1):
            worker.poll(max(0.0, deadline - time.perf_counter()))
            worker.reap()
            out.append(worker.answer if worker.received else {"worker": w, "error": worker.error or "no report"})
        for q in self.queues:
            q.cancel_join_thread()
        return out


def second_best(heap: list[Node]) -> Node | None:
    """Remove and return the heap's second-best node (None with fewer than two)."""
    if len(heap) < 2:
        return None
    best = heapq.heappop(heap)
    node = heapq.heappop(heap)
    heapq.heappush(heap, best)
    return node
