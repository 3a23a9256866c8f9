"""The `buraco` typer app: registers each command group's module."""

from __future__ import annotations

import typer

from . import rules_cmd

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


def main() -> None:
    """Run the app (the `buraco` console script)."""
    app()


if __name__ == "__main__":
    main()
