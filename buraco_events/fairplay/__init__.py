"""Fair play: did a player play as if they saw cards they could not see (`buraco fairplay`).

`oracle` deals the hidden cards keeping what an oracle knows fixed, `judge` values each decision
of a player on the information set and on each oracle, `verdict` weighs a player's decisions
against an honest player's of the same strength, and `peek` holds the cheating bots the method is
calibrated with.
"""
