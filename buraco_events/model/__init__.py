"""The data the rest of the package speaks in: rules presets, events, seat views and score sheets.

These are msgspec Structs (the log's and the JSON outputs' shapes); they stay pure Python, since
mypyc drops Struct options such as `frozen` in compiled modules. A change here is a change to a
public format.
"""
