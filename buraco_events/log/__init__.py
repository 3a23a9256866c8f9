"""Game logs on disk: reading and checking lines, the hash chain and seals, appending safely,
repair, the deal commitments, reading many logs at once (sources) and the archive format.

This is the shell that touches files; the core never imports it.
"""
