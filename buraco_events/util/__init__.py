"""Infrastructure every layer above the rules may use: the worker pool, sizes with their units,
text made safe to show. Imports nothing of ours but `util` itself.
"""
