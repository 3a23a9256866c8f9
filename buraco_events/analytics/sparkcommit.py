"""Spark's daily loads (`spark-index --append`): a run's files written aside, then committed.

A run writes its tables in `DIR/_append-<time>-<id>/` (`STAGING`); `commit` marks the folder
`COMMITTED` and moves its files into the tables, so nothing written is rewritten; `recover`
finishes a commit cut short and removes a run that never reached it. The Hadoop file system of
the session does the moves (local folders and object stores alike); pyspark is the caller's.
"""

from __future__ import annotations

import contextlib
from typing import Any

#: the name prefix of a run's folder under the output while `append` writes it (a name starting
#: with `_`: no reader of the tables lists it, neither Spark nor `connect_parquet`)
STAGING = "_append-"
#: the file that marks a run's folder as committed: its files belong in the tables
COMMITTED = "_COMMITTED"


def hadoop_path(spark: Any, path: str) -> tuple[Any, Any]:
    """Return the Hadoop file system of `path` and the Hadoop path itself."""
    jvm = spark.sparkContext._jvm
    p = jvm.org.apache.hadoop.fs.Path(path)
    return p.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration()), p


def child_path(spark: Any, parent: Any, name: str) -> Any:
    """Return the Hadoop path `name` under the Hadoop path `parent`."""
    return spark.sparkContext._jvm.org.apache.hadoop.fs.Path(parent, name)


def _moves(spark: Any, folder: str, out: str) -> list[tuple[Any, Any]]:
    """Return (from, to) of every Parquet file of a run's folder: to the same place under `out`
    (Spark's own files, `_SUCCESS` and checksums, stay behind)."""
    fs, root = hadoop_path(spark, folder)
    base = fs.makeQualified(root).toString().rstrip("/")
    _, dest = hadoop_path(spark, out)
    moves = []
    found = fs.listFiles(root, True)
    while found.hasNext():
        path = found.next().getPath()
        name = path.toString()
        relative = name[len(base) + 1:]
        if name.endswith(".parquet") and not any(
                part.startswith(("_", ".")) for part in relative.split("/")):
            moves.append((path, child_path(spark, dest, relative)))
    return moves


def commit(spark: Any, folder: str, out: str) -> None:
    """Move a run's files from `folder` into the tables under `out`, then remove `folder`.

    `COMMITTED` is written first: from then on the run counts as done, and a commit cut short
    (the driver killed) is finished by the next `append` (`recover`); before it, the run never
    happened. Each file keeps the name Spark gave it (unique to the job), so nothing already in
    a table is overwritten."""
    fs, root = hadoop_path(spark, folder)
    marker = child_path(spark, root, COMMITTED)
    if not fs.exists(marker):
        fs.create(marker, False).close()
    _, dest_root = hadoop_path(spark, out)
    for status in fs.listStatus(root):  # every table's folder, also of a table with no rows
        if status.isDirectory():
            fs.mkdirs(child_path(spark, dest_root, status.getPath().getName()))
    for source, dest in _moves(spark, folder, out):
        fs.mkdirs(dest.getParent())
        if fs.exists(dest):  # moved by a copy that was cut short (object stores): again
            fs.delete(dest, False)
        if not fs.rename(source, dest):
            raise OSError(f"cannot move {source.toString()} to {dest.toString()} (the run is "
                          "committed: the next --append finishes moving its files)")
    fs.delete(root, True)


def recover(spark: Any, out: str) -> list[str]:
    """Finish the committed runs' folders left under `out` (a commit cut short) and remove the
    others (runs that failed or were killed before their commit); return the folders seen."""
    fs, root = hadoop_path(spark, out)
    seen = []
    for status in fs.listStatus(root):
        path = status.getPath()
        if not (status.isDirectory() and path.getName().startswith(STAGING)):
            continue
        folder = f"{out.rstrip('/')}/{path.getName()}"
        seen.append(folder)
        if fs.exists(child_path(spark, path, COMMITTED)):
            commit(spark, folder, out)
        else:
            fs.delete(path, True)
    return seen


def discard_run(spark: Any, folder: str, out: str, existed: bool) -> None:
    """Remove a failed run's folder (and `out`, when the run created it and it is empty)."""
    with contextlib.suppress(Exception):  # the failure itself is the report
        fs, root = hadoop_path(spark, folder)
        if fs.exists(root) and not fs.exists(child_path(spark, root, COMMITTED)):
            fs.delete(root, True)
        _, out_path = hadoop_path(spark, out)
        if not existed and fs.exists(out_path) and not fs.listStatus(out_path):
            fs.delete(out_path, False)
