"""The rules of Buraco as code: cards, melds, the engine's fold, legal moves, the table and bots.

Everything here is pure (no I/O, no msgspec Struct definitions) and is what mypyc compiles in the
compiled build (`setup.py`'s `COMPILED`): a change here is a change to what the game allows or how
fast it is decided.
"""
