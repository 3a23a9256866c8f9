"""Victory points: a scale turns the difference between a table's two totals into points for
each side (docs/log-format.md, "Tournament logs").

A scale is rows `(max_diff, vp_high, vp_low)`, ascending by `max_diff`, the last one's None (any
larger difference). A difference `d` takes the first row with `d <= max_diff`; a tie gives both
sides the first row's `vp_high` and `vp_low` as written. The two Italian scales (3- and 4-hand
turns) are named `3` and `4`; any other comes from a CSV file of rows.
"""

from __future__ import annotations

import csv
import io

from .events import ScaleRow

Scale = tuple[ScaleRow, ...]

#: the Italian scale for 3-hand turns: 0-50 is 10-10, 55-150 11-9, ... over 1500 20-0
ITALIAN_3: Scale = (
    (50, 10, 10), (150, 11, 9), (250, 12, 8), (350, 13, 7), (500, 14, 6), (650, 15, 5),
    (800, 16, 4), (1000, 17, 3), (1250, 18, 2), (1500, 19, 1), (None, 20, 0),
)
#: the Italian scale for 4-hand turns: 0-100 is 10-10, 105-300 11-9, ... over 2000 20-0
ITALIAN_4: Scale = (
    (100, 10, 10), (300, 11, 9), (500, 12, 8), (700, 13, 7), (900, 14, 6), (1100, 15, 5),
    (1300, 16, 4), (1500, 17, 3), (1700, 18, 2), (2000, 19, 1), (None, 20, 0),
)
SCALES: dict[str, Scale] = {"3": ITALIAN_3, "4": ITALIAN_4}
#: a CSV scale file's largest size, in bytes
MAX_SCALE_FILE = 64 * 1024


class ScaleError(ValueError):
    """A scale that is not one: rows out of order, no open last row, a bad cell."""


def check_scale(rows: Scale) -> Scale:
    """Return the rows when they form a scale, else raise `ScaleError` naming the bad row."""
    if not rows:
        raise ScaleError("a scale has at least one row")
    last = -1
    for i, (max_diff, high, low) in enumerate(rows, 1):
        final = i == len(rows)
        if max_diff is None and not final:
            raise ScaleError(f"row {i}: only the last row has no max_diff")
        if max_diff is not None and final:
            raise ScaleError(f"row {i}: the last row's max_diff is empty (any larger difference)")
        if max_diff is not None:
            if max_diff <= last:
                raise ScaleError(f"row {i}: max_diff {max_diff} is not above the row before ({last})")
            last = max_diff
        if high < low:
            raise ScaleError(f"row {i}: vp_high {high} is below vp_low {low}")
    return rows


def parse_scale_csv(text: str, name: str = "scale") -> Scale:
    """Return the scale of a CSV text: one row `max_diff,vp_high,vp_low` a line, the last
    row's max_diff empty; a first line of words is a header. Raises `ScaleError`."""
    rows: list[ScaleRow] = []
    for lineno, cells in enumerate(csv.reader(io.StringIO(text)), 1):
        if not cells or all(not c.strip() for c in cells):
            continue
        if len(cells) != 3:
            raise ScaleError(f"{name}: line {lineno}: {len(cells)} cells (max_diff,vp_high,vp_low)")
        first = cells[0].strip()
        if lineno == 1 and not first.lstrip("-").isdigit() and first:
            continue  # a header
        try:
            max_diff = int(first) if first else None
            high, low = int(cells[1]), int(cells[2])
        except ValueError:
            raise ScaleError(f"{name}: line {lineno}: cells must be whole numbers") from None
        if max_diff is not None and max_diff < 0 or not (-1000 <= low <= high <= 1000):
            raise ScaleError(f"{name}: line {lineno}: out of range (max_diff >= 0, vp -1000..1000)")
        rows.append((max_diff, high, low))
    try:
        return check_scale(tuple(rows))
    except ScaleError as exc:
        raise ScaleError(f"{name}: {exc}") from None


def victory_points(totals: tuple[int, int] | list[int], scale: Scale) -> tuple[int, int]:
    """Return each side's victory points for a table's totals (team 0, team 1)."""
    a, b = totals
    diff = abs(a - b)
    if a == b:
        return scale[0][1], scale[0][2]
    high, low = next((h, lo) for top, h, lo in scale if top is None or diff <= top)
    return (high, low) if a > b else (low, high)
