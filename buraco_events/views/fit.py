"""Tables that fit a width without cutting a number or a name.

Rich shrinks a table too wide for the terminal and cuts what no longer fits with `…`. A table
here never loses a character: one that fits prints as it is; one that fits once its cells wrap at
their spaces is wrapped; any other is printed in slices of columns, each repeating the leading
columns that tell the rows apart (the rows' key) and fitting the width. Every column is set to
fold rather than cut, so a word wider than its column goes on over the next line.
"""

from __future__ import annotations

import copy

from rich.console import Console, ConsoleOptions
from rich.measure import Measurement
from rich.table import Column, Table


def _measure(console: Console, options: ConsoleOptions, table: Table) -> Measurement:
    return Measurement.get(console, options, table)


def _with_columns(table: Table, columns: list[Column], first: bool) -> Table:
    """Return a copy of `table` holding `columns` only (its title on the first slice)."""
    part = copy.copy(table)
    part.columns = columns
    if not first:
        part.title = None
    return part


def fitted(table: Table, console: Console, width: int | None = None) -> list[Table]:
    """Return `table` as tables that fit `width` (the console's by default) with nothing cut:
    itself (cells wrapped or folded if need be), or slices of its columns, each led by the rows'
    key columns. Sets every column of `table` to fold and wrap."""
    width = width or console.width
    options = console.options.update(width=1 << 16)  # measured unbounded: Measurement clamps to it
    for column in table.columns:
        column.overflow = "fold"
        column.no_wrap = False
    whole = _measure(console, options, table)
    if whole.maximum <= width or whole.minimum <= width or len(table.columns) < 3:
        return [table]  # it fits, or its cells wrap at spaces without a word cut
    keys = _key_columns(table.columns)
    rest = table.columns[len(keys):]
    groups: list[list[Column]] = [[]]
    for column in rest:
        trial = _with_columns(table, [*keys, *groups[-1], column], False)
        if groups[-1] and _measure(console, options, trial).maximum > width:
            groups.append([])
        groups[-1].append(column)
    return [_with_columns(table, [*keys, *group], i == 0) for i, group in enumerate(groups)]


def _key_columns(columns: list[Column]) -> list[Column]:
    """Return the leading columns that tell the rows apart (the first, and the next while rows
    share their values, up to three), repeated at the head of every slice."""
    keys = [columns[0]]
    while len(keys) < min(3, len(columns) - 1):
        rows = list(zip(*(tuple(str(cell) for cell in c.cells) for c in keys), strict=True))
        if len(set(rows)) == len(rows):
            break
        keys.append(columns[len(keys)])
    return keys


def print_fitted(console: Console, table: Table, width: int | None = None) -> None:
    """Print `table` on `console` as `fitted` makes it, the slices one below the other."""
    for part in fitted(table, console, width):
        console.print(part)


__all__ = ["fitted", "print_fitted"]
