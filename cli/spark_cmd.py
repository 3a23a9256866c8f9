"""`buraco spark-index INPUT... --out DIR`: logs indexed by a Spark job into Parquet tables."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from buraco_events.analytics.database import one_line
from buraco_events.views.fit import print_fitted

from .common import PROBLEMS, err, fail, out, shown


def spark_index(
    inputs: Annotated[list[str], typer.Argument(
        help="log files, folders of logs or .bza archives, on any filesystem the cluster reads "
        "(local paths, hdfs://, s3a://...)", show_default=False)],
    out_dir: Annotated[str, typer.Option(
        "--out", metavar="DIR",
        help="output folder: DIR/<table>/variant=<v>/ as `buraco export`, and DIR/rejects")],
    master: Annotated[str | None, typer.Option(
        "--master", metavar="URL",
        help="Spark master (local[4], spark://host:7077, yarn...); default: Spark's or "
        "spark-submit's")] = None,
    replace: Annotated[bool, typer.Option(
        "--replace", help="overwrite an existing output folder")] = False,
    append: Annotated[bool, typer.Option(
        "--append", help="add the logs to an existing output folder (a daily load): a game "
        "already there is skipped (the same head) or a conflict (another head); nothing "
        "written is rewritten, and a failed run leaves the folder as it was")] = False,
) -> None:
    """Index logs with Spark into zstd Parquet (the tables of `buraco export`, plus rejects).

    Exit 1 if a log was rejected (listed, and in DIR/rejects), 2 if an input cannot be read, the
    output exists (without --replace or --append), or pyspark or Java is missing.
    """
    from buraco_events.analytics.spark import OutputExists, SparkUnavailable
    from buraco_events.analytics.spark import spark_index as run

    try:
        report = run(inputs, out_dir, master=master, replace=replace, append=append)
    except (SparkUnavailable, OutputExists) as exc:
        fail(str(exc))
    except FileNotFoundError as exc:
        fail(f"{exc.filename}: no such file or folder")
    except OSError as exc:  # a file of the run that could not be moved into the tables
        fail(f"spark-index: {shown(str(exc))}")
    except Exception as exc:
        if not type(exc).__module__.startswith(("pyspark", "py4j")):
            raise  # our own bug: its traceback is the report
        # the cluster's failure (a path it cannot read, a lost executor): its first line
        fail(f"spark-index: the Spark job failed: {shown(one_line(exc)[:400])}")
    console = err()
    for path, _seq, kind, message in report.rejects:  # a log's text: shown, never markup
        console.print(f"rejected ({kind}): {shown(path)}: {shown(message)}", highlight=False)
    table = Table(title=f"indexed by Spark into {shown(out_dir)}"
                  + (" (rows added)" if append else ""))
    table.add_column("table")
    table.add_column("rows", justify="right")
    for name, n in report.counts.items():
        table.add_row(name, f"{n:,}")
    table.add_row("rejects", f"{len(report.rejects):,}")
    print_fitted(out(), table)
    if not report.ok:
        raise typer.Exit(PROBLEMS)
