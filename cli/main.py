"""The `buraco` typer app: registers each command group's module."""

from __future__ import annotations

import typer

from . import (
    analytics_cmd,
    archive_cmd,
    audit_cmd,
    demo_cmd,
    log_cmd,
    play_cmd,
    replay_cmd,
    rules_cmd,
    schema_cmd,
    share_cmd,
    simulate_cmd,
)

app = typer.Typer(
    name="buraco",
    help="Buraco as an event log: simulate, replay, audit and query games.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)



@app.callback()
def _root() -> None:
    """Buraco as an event log: simulate, replay, audit and query games."""


app.command("rules")(rules_cmd.rules)
app.command("simulate")(simulate_cmd.simulate)
app.command("audit")(audit_cmd.audit)
app.command("index")(analytics_cmd.index)
app.command("sql")(analytics_cmd.sql)
app.command("stats")(analytics_cmd.stats)
app.command("export")(analytics_cmd.export)
app.command("replay")(replay_cmd.replay)
app.command("share")(share_cmd.share)
app.add_typer(log_cmd.app, name="log")
app.add_typer(archive_cmd.app, name="archive")
app.command("schema")(schema_cmd.schema)
app.command("play")(play_cmd.play)
app.command("demo")(demo_cmd.demo)


def main() -> None:
    """Run the app (the `buraco` console script)."""
    app()


if __name__ == "__main__":
    main()
