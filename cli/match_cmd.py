"""`buraco match --bots A,B --deals N`: a duplicate match between two bots (`play.match`).

Exit codes: 0 played, 1 a bot that fails or a game that does not end, 2 a bad option or an output
folder that cannot be written.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import msgspec
import typer
from rich.table import Table
from rich.text import Text

from buraco_events.play.match import MatchResult, match
from buraco_events.util.text import plural, signed, visible
from buraco_events.views.fit import print_fitted

from .bouts import Deals, Json, Players, Seed, Variant, Workers, play_deals
from .common import BOT_NAMES_WORDS, RulesOption, fail, out, rule_overrides

#: the deals the text lists one by one (`--json` has them all)
ROWS_SHOWN = 20


def match_cmd(
    bots: Annotated[str, typer.Option(
        "--bots", metavar="A,B",
        help=f"the two bots that play each other, comma-separated; a bot is {BOT_NAMES_WORDS}")],
    deals: Deals = 20,
    seed: Seed = 0,
    variant: Variant = "stbl",
    players: Players = 2,
    out_dir: Annotated[Path, typer.Option("--out", help="folder for every game's log (created)")] = Path("match"),
    workers: Workers = None,
    as_json: Json = False,
    rules: RulesOption = None,
) -> None:
    """Play a duplicate match: every deal twice, the same cards for both bots with the teams' seats
    swapped, so the luck of the deal cancels; print each bot's total and the per-deal differences
    with a 95% confidence interval."""
    names = [n.strip() for n in bots.split(",")]
    if len(names) != 2 or not all(names):
        fail(f"--bots: give two bots, A,B (got {bots!r})")
    overrides = rule_overrides(rules, variant)
    result = play_deals("match", names, players, out_dir, workers, lambda n, on_game: match(
        out_dir, names, deals, seed, variant, players, n, on_game, overrides))
    if as_json:
        sys.stdout.write(msgspec.json.encode(result).decode() + "\n")
        return
    _print(result)


def _print(m: MatchResult) -> None:
    console = out()
    a, b = (visible(n) for n in m.bots)
    console.print(Text(f"duplicate match, {plural(len(m.deals), 'deal')} of {m.variant}, {m.players} players, seed {m.seed}: "
                       f"{a} against {b}", style="bold"), soft_wrap=True)
    table = Table(show_edge=False)
    for col in ("deal", f"{a} in team 0", f"{a} in team 1", "difference"):
        table.add_column(col, justify="right", overflow="fold")
    for d in m.deals[:ROWS_SHOWN]:
        table.add_row(str(d.deal + 1), f"{d.a_team0:+d}", f"{d.a_team1:+d}", signed(d.diff))
    print_fitted(console, table)
    console.print(f"each seating: {a}'s team total less {b}'s; difference: their mean, what {a}'s play is "
                  "worth a game with the deal's luck cancelled", soft_wrap=True)
    if len(m.deals) > ROWS_SHOWN:
        more = len(m.deals) - ROWS_SHOWN
        console.print(f"and {plural(more, 'more deal')} (--json lists them all)")
    console.print(f"totals: {a} {m.totals[0]}, {b} {m.totals[1]}")
    if m.ci95 is None:
        console.print(f"{a} minus {b}: {signed(m.mean_diff)} points a game (one deal: no confidence interval)",
                      soft_wrap=True)
    else:
        lo, hi = m.ci95
        verdict = (f"{a} is stronger" if lo > 0 else f"{b} is stronger" if hi < 0
                   else "no difference shown at 95%: play more deals")
        console.print(f"{a} minus {b}: {signed(m.mean_diff)} points a game, 95% interval "
                      f"[{signed(lo)}, {signed(hi)}]: {verdict}", soft_wrap=True)
    console.print(f"logs: {visible(m.out)} ({plural(2 * len(m.deals), 'game')})", soft_wrap=True)


__all__ = ["match_cmd"]
