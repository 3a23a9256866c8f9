"""Archives of games as tables: the one column declaration, the rows built from a replay, indexing
into DuckDB, read-only bounded queries, SQL views, plots, Parquet and Spark.
"""
