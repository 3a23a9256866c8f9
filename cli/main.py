"""The `buraco` typer app: registers each command group's module."""

from __future__ import annotations

import copy
import gc
import inspect
import re
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
    fairplay_cmd,
    league_cmd,
    log_cmd,
    match_cmd,
    play_cmd,
    replay_cmd,
    rules_cmd,
    schema_cmd,
    serve_cmd,
    share_cmd,
    simulate_cmd,
    spark_cmd,
    tournament_cmd,
    whatif_cmd,
)

#: click's plain names of values, by Python type; other types show their name in capitals
_VALUE_NAMES = {"str": "TEXT", "int": "INTEGER", "float": "FLOAT", "Path": "PATH"}


def _value_name(param: TyperOption | TyperArgument) -> str:
    """Return the plain name of what a parameter takes: PATH, not `<path>` or `<list[Path]>`."""
    descriptor = getattr(param, "type_descriptor", None)  # typer 0.29 on
    if descriptor is None:  # typer 0.28: its click's name of the type (str, int, path)
        return _VALUE_NAMES.get(param.type.name, param.type.name.upper())
    annotation = descriptor.annotation
    args = getattr(annotation, "__args__", None)
    if args and len(args) == 1:  # list[Path]: what one item is
        annotation = args[0]
    name = getattr(annotation, "__name__", str(annotation))
    return _VALUE_NAMES.get(name, name.upper())


def _plain_type(param: TyperArgument) -> Any:
    """Return a copy of an argument's click type that names itself as `_value_name` does (TEXT,
    PATH) where typer 0.28 would tag it `<str>`; the type checks and converts values as before."""
    kind = param.type
    name = _value_name(param)

    class Plain(type(kind)):  # type: ignore[misc]
        def get_metavar(self, *args: Any, **kwargs: Any) -> str:
            return name

    plain = copy.copy(kind)
    plain.__class__ = Plain
    return plain


class _PlainOption(TyperOption):
    """An option whose help reads `--json` for a flag and `--db PATH` for a value, and whose
    default said in words reads as typer shows a value, `[default: the machine's cores]`."""

    def _get_default_string(self, *, ctx: Any, show_default_is_str: bool, default_value: Any) -> str:
        """Return the default as help shows it: words given as `show_default` as they are (typer
        would put them in brackets), else typer's own string of the value."""
        if show_default_is_str:
            return str(self.show_default)
        return str(super()._get_default_string(ctx=ctx, show_default_is_str=False, default_value=default_value))

    def display_type_rich(self, ctx: object) -> str | None:
        """Return the value's name in help: none for a flag, else the metavar or PATH, TEXT..."""
        if self.is_flag:
            return None
        return self.metavar or _value_name(self)

    def make_metavar(self, ctx: Any, *args: Any, **kwargs: Any) -> str:
        """typer 0.28: the value's name in help and errors, the metavar or PATH, TEXT... (a
        flag's BOOLEAN, which typer leaves out of help)."""
        return self.metavar or _value_name(self)


class _PlainArgument(TyperArgument):
    """An argument whose help reads `paths... PATH` and whose usage line reads `LOG`, `[LOG]`
    or `PATHS...` (typer's reads `{log}`)."""

    def display_type_rich(self, ctx: object) -> str | None:
        """Return the value's name in help: PATH, TEXT..."""
        return _value_name(self)

    def make_metavar(self, ctx: Any, *, usage: bool = False) -> str:
        """typer 0.28: the usage line shows `_usage_display_name`, the help the argument's name."""
        if usage:
            return self._usage_display_name()
        return self.name or ""

    def _usage_display_name(self) -> str:
        """Return the argument as the usage line shows it: its name in capitals, in brackets
        when optional, followed by `...` when it takes several."""
        name = self.metavar or (self.name or "").upper()
        if not self.required:
            name = f"[{name}]"
        return name + ("..." if self.nargs != 1 else "")


#: a default said in a parameter's help, `(default: X)` or `; default: X` at its end: the help
#: shows it in typer's one form instead, `[default: X]` after the help
_SAID_DEFAULT = re.compile(r"\s*\(default: ((?:[^()]|\([^()]*\))*)\)|[;,]?\s*\bdefault: (.*)$")


def _one_default_form(param: TyperOption | TyperArgument) -> None:
    """Move a default said in words in a parameter's help to where typer shows a default."""
    help_text = param.help or ""
    found = _SAID_DEFAULT.search(help_text)
    if found is None:
        return
    said = (found.group(1) or found.group(2) or "").strip()
    param.help = (help_text[:found.start()] + help_text[found.end():]).strip()
    param.show_default = said


def unwrapped(text: str | None) -> str | None:
    """Return help text with the line breaks inside its paragraphs made spaces, so the terminal
    wraps it; paragraphs (split by a blank line) stay apart, and a paragraph that starts with
    `\\b` keeps its lines (a list of keys)."""
    if not text:
        return text
    paragraphs = inspect.cleandoc(text).split("\n\n")
    return "\n\n".join(p[1:].strip("\n") if p.startswith("\b") else " ".join(p.split())
                       for p in paragraphs)


def _plain_help(command: Any) -> None:
    """Give every parameter of a command and its subcommands (their --help included) plain help.

    typer tags every parameter with its type (`--json <bool>`, `paths <list[Path]>`; 0.28 asks
    `make_metavar` and the click type, 0.29 `display_type_rich`) and offers no setting against it
    nor a way to choose its parameter classes: the parameters typer built become the subclasses
    above, which differ only in that display (an argument's type, on 0.28, a copy that names
    itself plainly).
    """
    plain: dict[type, type] = {TyperOption: _PlainOption, TyperArgument: _PlainArgument}
    command.help = unwrapped(command.help)
    help_option = command.get_help_option(typer.Context(command))
    for param in [*command.params, *([help_option] if help_option is not None else [])]:
        param.__class__ = plain.get(type(param), type(param))
        if isinstance(param, TyperOption | TyperArgument):
            _one_default_form(param)
        if isinstance(param, TyperArgument) and not hasattr(param, "type_descriptor"):
            param.type = _plain_type(param)  # typer 0.28 asks the type for the help's column
    for sub in getattr(command, "commands", {}).values():
        _plain_help(sub)


class _PlainHelpGroup(TyperGroup):
    """The root command: built by typer with every command under it, then given plain help."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        _plain_help(self)


#: the panels of `buraco --help`, by what people do; each command's example (EXAMPLES) ends its
#: help
PLAY, REFEREE, ANALYSE, ARCHIVES = "Play and watch", "Referee", "Analyse", "Archives"

#: the root's help ends with an example of each panel, one a line
ROOT_EXAMPLES = {
    PLAY: "buraco demo",
    REFEREE: "buraco audit games/",
    ANALYSE: "buraco stats --db buraco.duckdb",
    ARCHIVES: "buraco archive list games.bza",
}

app = typer.Typer(
    name="buraco",
    help="Buraco as an event log: simulate, replay, audit and query games.",
    epilog="Examples:\n\n" + "\n\n".join(f"{panel.lower()}: {example}"
                                            for panel, example in ROOT_EXAMPLES.items()),
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


EXAMPLES: dict[str, tuple[str, str]] = {
    "play": (PLAY, "buraco play --variant stbl --players 2 --bots greedy"),
    "replay": (PLAY, "buraco replay games/stbl-2p-s1-00000.jsonl --as 0 --hand 1"),
    "share": (PLAY, "buraco share games/stbl-2p-s1-00000.jsonl --as 0 -o seat0.html"),
    "demo": (PLAY, "buraco demo --out buraco-demo"),
    "serve": (PLAY, "buraco serve --dir tables --bots greedy --clock 60"),
    "simulate": (PLAY, "buraco simulate --games 100 --variant stbl --out games"),
    "audit": (REFEREE, "buraco audit games/ --expect-head HEX"),
    "rule": (REFEREE, "buraco rule game.jsonl --kind hand_voided --hand 1 --by referee"
                      " --reason \"a card was exposed in the deal\""),
    "branch": (REFEREE, "buraco branch game.jsonl --at 57 -o whatif.jsonl --play \"discard KC\""
                        " --bots greedy --by ana --reason \"keep the 6S\""),
    "compare": (REFEREE, "buraco compare game.jsonl whatif.jsonl"),
    "analyze": (ANALYSE, "buraco analyze game.jsonl --as 0 --samples 16"),
    "fairplay": (REFEREE, "buraco fairplay games/ --player ana --html fairplay.html"),
    "match": (ANALYSE, "buraco match --bots expert,greedy --deals 20 --out match"),
    "league": (ANALYSE, "buraco league --bots greedy,random,expert:samples=4 --deals 20 --plot league.png"),
    "log": (REFEREE, "buraco log check game.jsonl"),
    "tournament": (REFEREE, "buraco tournament standings club.jsonl --html club.html"),
    "index": (ANALYSE, "buraco index games/ --db buraco.duckdb"),
    "sql": (ANALYSE, "buraco sql \"SELECT * FROM player_standings\" --db buraco.duckdb"),
    "stats": (ANALYSE, "buraco stats --db buraco.duckdb --variant stbl"),
    "export": (ANALYSE, "buraco export --db buraco.duckdb --parquet parquet/"),
    "spark-index": (ANALYSE, "buraco spark-index games/ --out parquet/"),
    "rules": (ANALYSE, "buraco rules stbl"),
    "archive": (ARCHIVES, "buraco archive pack games/ -o games.bza"),
    "schema": (ARCHIVES, "buraco schema -o schemas/events.schema.json"),
}


def _example(name: str) -> str:
    """Return the epilog of a command's help: its example."""
    return f"Example: {EXAMPLES[name][1]}"


def _command(name: str, function: Any, **kwargs: Any) -> None:
    """Register a command under its panel of `buraco --help`, its example closing its help."""
    panel = EXAMPLES[name][0]
    app.command(name, rich_help_panel=panel, epilog=_example(name), **kwargs)(function)


def _group(name: str, group: typer.Typer) -> None:
    """Register a command group under its panel of `buraco --help`, with its example."""
    app.add_typer(group, name=name, rich_help_panel=EXAMPLES[name][0], epilog=_example(name))


_command("play", play_cmd.play)
_command("replay", replay_cmd.replay, help=replay_cmd.replay_help())
_command("share", share_cmd.share)
_command("demo", demo_cmd.demo)
_command("serve", serve_cmd.serve)
_command("simulate", simulate_cmd.simulate)
_command("audit", audit_cmd.audit)
_command("rule", whatif_cmd.rule)
_command("branch", whatif_cmd.branch)
_command("compare", whatif_cmd.compare)
_group("log", log_cmd.app)
_group("tournament", tournament_cmd.app)
_command("index", analytics_cmd.index)
_command("sql", analytics_cmd.sql, help=analytics_cmd.sql_help(), cls=analytics_cmd.QueryCommand)
_command("stats", analytics_cmd.stats)
_command("export", analytics_cmd.export)
_command("spark-index", spark_cmd.spark_index)
_command("rules", rules_cmd.rules)
_command("analyze", analyze_cmd.analyze_cmd)
_command("fairplay", fairplay_cmd.fairplay_cmd)
_command("match", match_cmd.match_cmd)
_command("league", league_cmd.league_cmd)
_group("archive", archive_cmd.app)
_command("schema", schema_cmd.schema)


def main() -> None:
    """Run the app (the `buraco` console script)."""
    try:
        app()
    finally:
        # at exit the interpreter runs a last collection over every object still tracked (about
        # 0.1 s after an index); frozen, they are freed with their modules and the process, as
        # any object that is not part of a cycle is anyway
        gc.freeze()


if __name__ == "__main__":
    main()
