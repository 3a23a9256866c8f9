"""The `buraco` command line: a typer app, one small module per command group."""
