"""Sizes in bytes as people write them, with explicit units: every size an option or an
environment variable gives is read here.

`KB`, `MB`, `GB`, `TB` are powers of 1000 and `KiB`, `MiB`, `GiB`, `TiB` powers of 1024 (case does
not matter); a bare number, or one with `B`, is bytes. A letter alone (`4G`) is refused: it would
mean either. `size_name` writes a size back in the largest binary unit that divides it.
"""

from __future__ import annotations

import re
from decimal import Decimal

#: what `--help` says of a size
UNITS_HELP = "KB, MB, GB are powers of 1000, KiB, MiB, GiB of 1024"

_UNITS = {
    "": 1, "b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
    "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40,
}
_SIZE = re.compile(r"\s*([0-9]{1,20}(?:\.[0-9]{1,9})?)\s*([a-z]*)\s*", re.IGNORECASE)


def parse_size(text: str) -> int:
    """Return the bytes of a size such as `64MiB`, `1.5GB` or `1000` (a whole number of bytes
    above 0); raise `ValueError` with a one-line reason otherwise."""
    match = _SIZE.fullmatch(text)
    unit = match[2].lower() if match else ""
    if match is None or unit not in _UNITS:
        raise ValueError(f"{text!r} is not a size (such as 512MB, 64MiB, 2GiB or a number of "
                         f"bytes; {UNITS_HELP})")
    size = Decimal(match[1]) * _UNITS[unit]
    if size != int(size) or size == 0:
        raise ValueError(f"{text!r} is not a size: give a whole number of bytes above 0")
    return int(size)


def size_name(n: int) -> str:
    """Return a size in the largest binary unit that divides it (`64 MiB`), else in bytes."""
    for unit in ("TiB", "GiB", "MiB", "KiB"):
        scale = _UNITS[unit.lower()]
        if n >= scale and n % scale == 0:
            return f"{n // scale} {unit}"
    return f"{n:,} bytes"
