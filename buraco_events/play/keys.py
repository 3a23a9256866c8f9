"""The key file of a game of `buraco play`: the secret behind its deals' salts.

Every deal carries a commitment (`log/commit.py`), shown before the hand's first move; the hand's
`hand_ended` reveals the salt and `buraco audit` proves the deck was fixed before play. The salts
are secret (`commit.keyed_salts` under a random key kept in `key_path(log)`, `LOG.key`, beside
the log and never in it, readable by its owner only), not derived from the seed: the seed is
printed and written in the setup note, so a salt drawn from it could be worked out by anyone, and
a commitment is only worth something while its salt cannot be guessed. The key file lets a
resumed game reveal the salts the interrupted one committed to; without it a hand's salt is lost
and the audit says so.
"""

from __future__ import annotations

import os
from pathlib import Path


def key_path(log: Path) -> Path:
    """Return where a game's secret salt key is kept: beside its log, never in it."""
    return log.with_name(log.name + ".key")


def write_key(path: Path, key: bytes) -> None:
    """Write a game's salt key, readable by its owner only, synced before any deal uses it."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, key.hex().encode() + b"\n")
        os.fsync(fd)
    finally:
        os.close(fd)


def read_key(path: Path) -> bytes | None:
    """Return a game's salt key, or None when its file is missing or does not read."""
    try:
        return bytes.fromhex(path.read_text().strip())
    except (OSError, ValueError):
        return None

