"""Setting up a branch played by hand: who plays it, its chance, its deals, its file name.

`session.resume_session` continues a branch (a log holding `branched`) by hand, set up by
`branch_table`; `session.branch_session` forks a log into a new branch played by hand (the
replay viewer's `b`) in the file `branch_file` names. Who plays a branch is its own setup note (a
`note` by "buraco play" right after `branched`, without a seed), else its parent's at seq 1,
else `--seat`/`--bots`; its chance is `seeds.BranchSeeds` of the `branched` line's seed; the
hands the parent recorded are dealt from the parent's log (`branch.ParentDeck`, with the salts of
the parent's key file, `parent_deck`), and never from anything else: without the parent's log the
next deal stops the session. Every screen of a branch starts with "branch of GAME at seq N"
(`events.branch_words`), so it is never taken for the game.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from rich.text import Text

from buraco_events.core.seeds import BranchSeeds
from buraco_events.core.state import GameState
from buraco_events.core.table import Table
from buraco_events.model.events import Branched, Event, HandStarted, Note, branch_words
from buraco_events.util.text import hand_words

from .branch import BranchError, ParentDeck, read_parent
from .keys import key_path, read_key
from .setup import NOTE_BY, Say, Setup, SetupError, bot_kinds


def branch_table(
    table: Table, path: Path, events: list[Event], branched: Branched, *, parent: Path | None,
    seat: int | None, bots: list[str] | None, say: Say,
) -> tuple[Setup, str, str]:
    """Set a resumed branch's table up: who plays, its chance, its deals; return the setup, the
    branch's label (`branch_words`) and the options `--resume` needs again.

    Who plays: `seat` and `bots` when given (a branch of a game not started by buraco play has
    no setup note: `seat` is needed), else the branch's own setup note (after `branched`) or its
    parent's at seq 1; `bots` defaults to the note's, else greedy. Chance: `BranchSeeds` of the
    `branched` line's seed, for the deals the parent never recorded and for the bots. A `deck:
    parent` branch deals the parent's recorded hands (`ParentDeck`, from `parent`'s lines and
    its key file `key_path(parent)`): without `parent`, the next deal stops the session with a
    `SetupError` (2) asking for it rather than deal a hand the parent may have dealt otherwise.
    """
    state = table.state
    n = state.n_players
    label = branch_words(branched.parent, branched)
    notes = [e for e in events if isinstance(e, Note) and e.by == NOTE_BY and (e.seq == 1 or e.seq > branched.seq)]
    noted = Setup.from_note(notes[-1], n) if notes else None
    if seat is not None and not 0 <= seat < n:
        raise SetupError(f"--seat: seats are 0..{n - 1}, got {seat}")
    human = seat if seat is not None else noted.human if noted is not None else None
    if human is None:
        raise SetupError(f"{path} ({label}): no setup note (the game was not started by buraco play): "
                         "say which seat you play with --seat N (the others' bots with --bots)")
    if bots is not None:
        kinds = bot_kinds(bots, n)
    elif noted is not None and noted.human == human:
        kinds = list(noted.bots)
    else:
        kinds = ["greedy"] * (n - 1)
    setup = Setup(human, tuple(kinds), 0)
    try:
        table.seats = setup.bot_seats(n)
    except ValueError as exc:
        raise SetupError(f"--bots: {exc}") from None
    table.rng = BranchSeeds(branched.seed)
    hint = ""
    if branched.deck == "parent":
        if parent is not None:
            deck = parent_deck(path, branched, parent)
            table.deals, table.salts = deck.deal, deck.salt
            hint = f" --parent {parent}"
        else:
            table.deals = _ask_for_parent(path, branched)
            hand = next((e for e in reversed(events) if isinstance(e, HandStarted)), None)
            if hand is not None and hand.commitment is not None and state.phase not in ("deal", "over"):
                say(Text(f"the salt of {hand_words(hand.hand)}'s deal is the parent's: without --parent it "
                         "cannot be revealed, so the audit will report it", style="red"))
    if seat is not None and (noted is None or noted.human != seat):
        hint += f" --seat {seat}"
    if bots is not None:
        hint += f" --bots {','.join(bots)}"
    return setup, label, hint


def parent_deck(path: Path, branched: Branched, parent: Path) -> ParentDeck:
    """Return the deck of a branch's parent: its recorded deals, and the salts it revealed or its
    key file holds. Raises `SetupError` (2) for a parent that does not read or is not the
    branch's: its lines up to the fork must be the branch's, byte for byte."""
    try:
        read = read_parent(parent)
    except BranchError as exc:
        raise SetupError(f"--parent: {exc}", 2) from None
    fork = branched.fork_seq
    mine = path.read_bytes().split(b"\n")[:fork + 1]
    if read.lines[:fork + 1] != mine:
        first = next((i for i, (a, b) in enumerate(zip(read.lines, mine, strict=False)) if a != b),
                     min(len(read.lines), len(mine)))
        raise SetupError(f"--parent: {parent} is not the parent of {path}: its line at seq {first} "
                         f"differs (the branch's lines 0..{fork} are its parent's)", 2)
    return ParentDeck(read.events, read_key(key_path(parent)))


def _ask_for_parent(path: Path, branched: Branched) -> Callable[[GameState], HandStarted | None]:
    """Return a deal source that stops the session at the next deal: it is the parent's to give."""

    def deal(state: GameState) -> HandStarted | None:
        raise SetupError(
            f"{path}: {hand_words(state.hand_no + 1)} of this {branch_words(branched.parent, branched)} is "
            f"dealt as its parent recorded it: pass the parent's log with --parent PARENT.jsonl", 2)

    return deal


def branch_file(log: Path, seq: int) -> Path:
    """Return a new file name for a branch of `log` at `seq`: `LOG-branch-SEQ.jsonl` beside the
    log (in the working folder when the log's folder is not writable, or the log is in an
    archive), with `-2`, `-3`... added
    rather than name a file that exists."""
    folder = log.parent if log.parent.is_dir() and os.access(log.parent, os.W_OK) else Path.cwd()
    stem = log.name[:-len(".jsonl")] if log.name.endswith(".jsonl") else log.name
    name = f"{stem}-branch-{seq}"
    path = folder / f"{name}.jsonl"
    n = 1
    while path.exists() or key_path(path).exists():
        n += 1
        path = folder / f"{name}-{n}.jsonl"
    return path

