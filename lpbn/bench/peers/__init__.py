"""Peer tools run by ``lpbn bench --external`` on the same inputs (optional extras)."""
