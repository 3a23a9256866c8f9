"""The bots: players that rank the actions the engine offers (the rules sit below, in `core`).

`registry` names the built-in bots and runs whole games of bots; `greedy` is the one-ply bot and
`rating` its valuation of plays and discards. The expert bot is a service of `analysis`, found by
its module's name.
"""
