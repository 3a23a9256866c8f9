"""Running games: the interactive session behind `buraco play` (setup note, key file, typed
commands), simulation of many games, matches and leagues.
"""
