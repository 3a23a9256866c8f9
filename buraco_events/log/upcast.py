"""Upcasting: lines of an older log schema rewritten, as plain dicts, into the current one on read.

A log states its schema in `game_started.schema_version`; an absent version means the current
one (`events.SCHEMA_VERSION`). Readers pass every line of an older log through `upcast` before
decoding it; the stored bytes never change, so the hash chain still verifies.

Schema history:
- 0 (prototype logs): the dead hands went by their Portuguese name, `morto`:
  `hand_started.mortos` for `deads`, `took_dead.morto` and `stock_refilled.morto` for `dead`.
- 1: the names of the log format.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from buraco_events.model.events import SCHEMA_VERSION, EventFormatError

Raw = dict[str, Any]

_V0_NAMES = {
    "hand_started": {"mortos": "deads"},
    "took_dead": {"morto": "dead"},
    "stock_refilled": {"morto": "dead"},
}


def _v0_to_v1(raw: Raw) -> Raw:
    """Rename the v0 `morto` fields; stamp game_started with version 1."""
    tag = raw.get("type")
    renames = _V0_NAMES.get(tag, {}) if isinstance(tag, str) else {}
    out = {renames.get(k, k): v for k, v in raw.items()}
    if tag == "game_started":
        out["schema_version"] = 1
    return out


#: step from version v to v + 1
_STEPS: dict[int, Callable[[Raw], Raw]] = {0: _v0_to_v1}


def upcast(raw: Raw, version: int) -> Raw:
    """Return the line `raw`, written under schema `version`, in the current schema."""
    if version not in _STEPS and version < SCHEMA_VERSION:
        raise EventFormatError(
            f"field schema_version: unknown version {version} (known: 0-{SCHEMA_VERSION})",
            "schema_version",
        )
    for v in range(version, SCHEMA_VERSION):
        raw = _STEPS[v](raw)
    return raw
