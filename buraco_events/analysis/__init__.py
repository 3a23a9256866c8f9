"""Judging play from what a seat could know: its information set and deals consistent with it."""
