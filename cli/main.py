"""The `buraco` typer app: registers each command group's module."""

from __future__ import annotations

from typing import Any

import typer
from typer.core import TyperArgument, TyperGroup, TyperOption

from buraco_events import __version__, build

from . import (
    analytics_cmd,
    analyze_cmd,
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
    spark_cmd,
    whatif_cmd,
)

#: click's plain names of values, by Python type; other types show their name in capitals
_VALUE_NAMES = {"str": "TEXT", "int": "INTEGER", "float": "FLOAT", "Path": "PATH"}


def _value_name(param: TyperOption | TyperArgument) -> str:
    """Return the plain name of what a parameter takes: PATH, not `<path>` or `<list[Path]>`."""
    annotation = param.type_descriptor.annotation
    args = getattr(annotation, "__args__", None)
    if args and len(args) == 1:  # list[Path]: what one item is
        annotation = args[0]
    name = getattr(annotation, "__name__", str(annotation))
    return _VALUE_NAMES.get(name, name.upper())


class _PlainOption(TyperOption):
    """An option whose help reads `--json` for a flag and `--db PATH` for a value."""

    def display_type_rich(self, ctx: object) -> str | None:
        """Return the value's name in help: none for a flag, else the metavar or PATH, TEXT..."""
        if self.is_flag:
            return None
        return self.metavar or _value_name(self)


class _PlainArgument(TyperArgument):
    """An argument whose help reads `paths... PATH`."""

    def display_type_rich(self, ctx: object) -> str | None:
        """Return the value's name in help: PATH, TEXT..."""
        return _value_name(self)


def _plain_help(command: Any) -> None:
    """Give every parameter of a command and its subcommands (their --help included) plain help.

    typer 0.29 tags every parameter with its Python type (`--json <bool>`, `paths <list[Path]>`)
    and offers no setting against it nor a way to choose its parameter classes: the parameters
    typer built become the subclasses above, which differ only in that display.
    """
    plain: dict[type, type] = {TyperOption: _PlainOption, TyperArgument: _PlainArgument}
    help_option = command.get_help_option(typer.Context(command))
    for param in [*command.params, *([help_option] if help_option is not None else [])]:
        param.__class__ = plain.get(type(param), type(param))
    for sub in getattr(command, "commands", {}).values():
        _plain_help(sub)


class _PlainHelpGroup(TyperGroup):
    """The root command: built by typer with every command under it, then given plain help."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        _plain_help(self)


app = typer.Typer(
    name="buraco",
    help="Buraco as an event log: simulate, replay, audit and query games.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    cls=_PlainHelpGroup,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"buraco-events {__version__} ({build()} build)")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True,
        help="print the version and which build runs (pure Python or compiled), then exit"),
) -> None:
    """Buraco as an event log: simulate, replay, audit and query games."""


app.command("rules")(rules_cmd.rules)
app.command("simulate")(simulate_cmd.simulate)
app.command("audit")(audit_cmd.audit)
app.command("index")(analytics_cmd.index)
app.command("sql", help=analytics_cmd.sql_help(), cls=analytics_cmd.QueryCommand)(
    analytics_cmd.sql)
app.command("stats")(analytics_cmd.stats)
app.command("export")(analytics_cmd.export)
app.command("spark-index")(spark_cmd.spark_index)
app.command("replay")(replay_cmd.replay)
app.command("share")(share_cmd.share)
app.command("branch")(whatif_cmd.branch)
app.command("compare")(whatif_cmd.compare)
app.command("rule")(whatif_cmd.rule)
app.command("analyze")(analyze_cmd.analyze_cmd)
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
