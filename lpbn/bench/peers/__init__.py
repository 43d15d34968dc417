"""Peer tools run by ``lpbn bench --external`` on the same inputs (optional extras)."""

from __future__ import annotations

import shutil
import sys


def print_truth_distance(dag, truth_path: str) -> None:
    """Print ``SHD is N (moral M)``: the structural and moral Hamming distances of a peer's
    ``dag`` to the true network saved at ``truth_path`` (the bench's ``{truth}``), the line the
    bench puts in the peer's row."""
    from lpbn.gaussian_network import load_dag
    from lpbn.metrics import moral_hamming_distance, structural_hamming_distance
    true = load_dag(truth_path)
    print(f"SHD is {structural_hamming_distance(true, dag)} (moral {moral_hamming_distance(true, dag)})")


def executable(name: str, peer: str, remedy: str) -> str | None:
    """The path of the peer's program ``name``, or None after one line on stderr saying it is
    missing and what to do (``remedy``); the peer then exits 2."""
    path = shutil.which(name)
    if path is None:
        print(f"{peer} peer: {name} not found ({remedy}, see PEERS.md)", file=sys.stderr)
    return path
