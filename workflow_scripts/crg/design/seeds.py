"""Seeds of the collective-risk games: every game's catastrophe draw and seat order derive from
``crg.seed`` and the game's identity, so every game replays identically."""

from __future__ import annotations

import hashlib


def derive_seed(*parts) -> int:
    """A 63-bit seed from the SHA-256 of the parts joined by ``/``."""
    digest = hashlib.sha256("/".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:8], "big") & (2**63 - 1)
