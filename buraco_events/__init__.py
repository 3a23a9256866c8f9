"""buraco-events: Buraco as an event log.

The pure core (cards, melds, rules, events, engine, projections, scoring, bots, render) does no
I/O; `log` and `archive` are the shell that touches files and DuckDB.
"""

__version__ = "0.1.0"


def build() -> str:
    """Return which build of the engine runs: "compiled" (mypyc) or "pure" (Python)."""
    from importlib.machinery import EXTENSION_SUFFIXES

    from . import engine

    return "compiled" if engine.__file__.endswith(tuple(EXTENSION_SUFFIXES)) else "pure"
