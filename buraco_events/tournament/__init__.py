"""Tournaments: pairings, victory points and standings where every result is a sealed game log.

A tournament is a log of its own (docs/log-format.md, "Tournament logs"), sealed and append-only
like a game log; its state is a fold of its events (`state`). The package is a service beside
`play` and `audit`:

- `events`: the tournament's events, a tagged union of their own;
- `scale`: the victory point scales (the two Italian ones, or rows from a CSV file);
- `state`: the fold, and the checks an event must pass before it is appended;
- `movements`: who meets whom each round (mitchell, danish, swiss, round_robin);
- `store`: reading a tournament log (chain checked, bounded) and appending to it;
- `games`: a table's game played by bots, and a game log bound to its table (audited, recounted);
- `standings`: the ranking, recomputed from the game logs and the events, never from claims;
- `director`: the commands (`new`, `enter`, `pair`, `record`, ...), each checked, then appended.
"""
