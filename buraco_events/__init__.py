"""buraco-events: Buraco as an event log.

The pure core (cards, melds, rules, events, engine, projections, scoring, bots, render) does no
I/O; `log` and `archive` are the shell that touches files and DuckDB.
"""

__version__ = "0.1.0"
