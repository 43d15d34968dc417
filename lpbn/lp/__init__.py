"""The linear-programming core shared by the LP-based methods (``dual``, ``highs``)."""
