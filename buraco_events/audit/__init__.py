"""Auditing a log: replaying it through the engine, checking the chain, the deals and the scores,
and the verdict's words (one headline, shared by every output).
"""
