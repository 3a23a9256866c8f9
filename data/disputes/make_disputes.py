"""Regenerate the disputed logs of data/disputes/ and their expected verdicts (expected.json).

Each log is a game played by greedy bots from a fixed seed, with deal commitments (the log format) and
timestamps like a real server's, then tampered as its story says. Where the story is a server
that lied (a wrong score, an illegal move it accepted, a deal changed after its commitment), the
log is RE-SEALED, so the chain holds and only the content gives the lie away; where the story is
an edit of the stored file (a changed card, a dropped line), the chain is left as it was.

The expected verdicts follow from the stories alone (the seq that was tampered and what the
contract says about it), never from running the audit:
    {file: {"ok": bool, "kinds": [kind of each problem, in the audit's seq order], "first_seq": int|None}}

Run: python data/disputes/make_disputes.py [OUT_DIR]   (default: this folder)
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import msgspec

from buraco_events.bots.registry import GreedyBot
from buraco_events.core.cards import ALL_CARDS
from buraco_events.core.closing import has_closing_canasta
from buraco_events.core.deads import can_take_dead
from buraco_events.core.engine import apply, check
from buraco_events.core.gate import IllegalMove, team_of
from buraco_events.core.hand_melds import candidate_melds
from buraco_events.core.moves import candidate_plays
from buraco_events.core.seeds import SharedStream
from buraco_events.core.sheets import match_result
from buraco_events.core.state import GameState
from buraco_events.core.table import Table, table_event
from buraco_events.log.commit import deal_commitment
from buraco_events.model.events import (
    Discarded,
    Drew,
    Event,
    GameEnded,
    GameStarted,
    HandEnded,
    HandStarted,
    Melded,
    decode_event,
    encode_event,
    event_type,
    seal_lines,
)
from buraco_events.model.rules import find_rules

HERE = Path(__file__).resolve().parent
PLAYERS = ("ana", "bruno", "carla", "davi")
START = datetime(2026, 3, 14, 19, 0, 0, tzinfo=UTC)
#: a cheat looks at the state where a player must act and returns the forged event, or None
Cheat = Callable[[GameState], Event | None]
Expected = dict[str, object]


def play_disputed(variant: str, n: int, seed: int, cheat: Cheat | None = None,
                  target: int | None = None) -> tuple[list[Event], int | None]:
    """Play a game with greedy bots, commitments and timestamps; apply `cheat` once if it fires.

    Returns the events and the seq of the forged event (None when the cheat never fired).
    """
    rules = find_rules(variant)
    start = GameStarted(
        seq=0, game_id=f"club-{variant}-{n}p-{seed:03d}", variant=variant, players=PLAYERS[:n],
        rules=rules, target=target if target is not None else rules.target,
    )
    events: list[Event] = []
    rng = random.Random(f"disputes/{variant}/{n}/{seed}")
    # one rng deals, salts, asks the bots and stamps the times (greedy bots draw nothing from it)
    table = Table([GreedyBot() for _ in range(n)], SharedStream(rng), events.append)
    table.append(start)
    state = table.state
    salts: dict[int, str] = {}
    forged_seq: int | None = None
    while not table.over and len(events) < 5000:
        ev = table_event(state, rng)
        if isinstance(ev, HandStarted):
            salt = f"{rng.getrandbits(128):032x}"
            salts[ev.hand] = salt
            ev = msgspec.structs.replace(ev, commitment=deal_commitment(salt, ev))
        elif isinstance(ev, HandEnded):
            ev = msgspec.structs.replace(ev, salt=salts[ev.hand])
        elif ev is None:
            forged = cheat(state) if cheat is not None and forged_seq is None else None
            if forged is not None:
                apply(state, forged)  # the lying server records it unchecked, behind the table's back
                events.append(forged)
                forged_seq = forged.seq
                continue
            table.step()  # the bot of the seat to move
            continue
        table.append(ev)
    return stamp(events, rng), forged_seq


def stamp(events: list[Event], rng: random.Random) -> list[Event]:
    """Give every event an RFC 3339 UTC time a few seconds after the one before."""
    out, t = [], START
    for ev in events:
        t += timedelta(seconds=rng.randint(1, 9))
        out.append(msgspec.structs.replace(ev, at=t.strftime("%Y-%m-%dT%H:%M:%SZ")))
    return out


def expect_illegal(state: GameState, ev: Event, reason_start: str) -> Event:
    """Return `ev` after making sure the engine rejects it for the story's reason."""
    try:
        check(state, ev)
    except IllegalMove as exc:
        if exc.reason.startswith(reason_start):
            return ev
        raise AssertionError(f"rejected for another reason: {exc.reason}") from None
    raise AssertionError(f"the engine accepts {ev}")


def first_seed(make: Callable[[int], tuple[list[Event], int | None]]) -> tuple[list[Event], int]:
    """Return the events and forged seq of the first seed whose game lets the cheat fire."""
    for seed in range(200):
        events, forged = make(seed)
        if forged is not None:
            return events, forged
    raise RuntimeError("no seed lets the cheat fire")


# -- the cheats -------------------------------------------------------------------------------


def close_without_clean(state: GameState) -> Event | None:
    """Meld the whole hand to go out although the team has no clean canasta (RULES 6)."""
    if state.phase != "play" or state.pending_top is not None:
        return None
    seat = state.to_play
    team = team_of(seat)
    if can_take_dead(state, team) or has_closing_canasta(state, team):
        return None
    hand = state.hands[seat]
    for cards in candidate_melds(hand, state.rules):
        if len(cards) == sum(hand.values()):
            ev = Melded(seq=state.next_seq, player=seat, meld=len(state.melds), cards=cards)
            try:
                return expect_illegal(state, ev, "cannot close")
            except AssertionError:
                continue
    return None


def _give(hand: dict[str, int], cards: list[str]) -> None:
    """Add `cards` to a state's hand (a card -> count dict)."""
    for c in cards:
        hand[c] = hand.get(c, 0) + 1


def skip_pile_top(state: GameState) -> Event | None:
    """After taking the closed pile, meld without its top card (RULES 2: the top must go first)."""
    top = state.pending_top
    if state.phase != "play" or top is None:
        return None
    honest = state.copy()
    seat = state.to_play
    # what the lying server did: the whole pile joined the hand at once
    trial = state.copy()
    _give(trial.hands[seat], [top, *trial.pending_rest])
    trial.pending_top, trial.pending_rest = None, []
    for ev in candidate_plays(trial):
        if isinstance(ev, Melded) and top not in ev.cards:
            expect_illegal(honest, ev, "closed pile: the top card")
            _give(state.hands[seat], [top, *state.pending_rest])
            state.pending_top, state.pending_rest = None, []
            return ev
    return None


# -- the disputes -----------------------------------------------------------------------------


def lines_of(events: list[Event]) -> list[bytes]:
    """Return sealed lines (the honest server's file)."""
    return seal_lines(events)


def seq_of(events: list[Event], tag: str, start: int = 0) -> int:
    """Return the seq of the first event of type `tag` at or after `start`."""
    return next(i for i, ev in enumerate(events) if i >= start and event_type(ev) == tag)


def replayed(events: list[Event], upto: int) -> GameState:
    """Return the state before event `upto`."""
    state = GameState()
    for ev in events[:upto]:
        apply(state, ev)
    return state


def build(out_dir: Path) -> dict[str, Expected]:
    """Write every disputed log into `out_dir` and return the expected verdicts."""
    files: dict[str, list[bytes]] = {}
    expected: dict[str, Expected] = {}

    def verdict(name: str, problems: list[tuple[str, int]]) -> None:
        failing = [k for k, _ in problems if k != "unsealed"]
        expected[name] = {
            "ok": not failing, "kinds": [k for k, _ in problems],
            "first_seq": min((s for _, s in problems), default=None),
        }

    # clean: an honest 4-player game; nothing to find
    clean, _ = play_disputed("stbl", 4, 7)
    files["clean.jsonl"] = lines_of(clean)
    verdict("clean.jsonl", [])

    # unsealed: the same honest game written by a tool that does not chain its lines
    files["unsealed.jsonl"] = [encode_event(msgspec.structs.replace(e, prev=None)) for e in clean]
    verdict("unsealed.jsonl", [("unsealed", 0)])

    # wrong_score: a 3-hand match; the server wrote hand 1 100 points too high for team 0 and
    # carried the lie into the final totals (and the winner, if the lie changes it); re-sealed
    match, _ = play_disputed("fechado", 2, 1)
    h1 = next(i for i, e in enumerate(match) if isinstance(e, HandEnded) and e.hand == 1)
    end = seq_of(match, "game_ended")
    he, ge = match[h1], match[end]
    assert isinstance(he, HandEnded) and isinstance(ge, GameEnded)
    scores = (he.scores[0] + 100, *he.scores[1:])
    totals = (ge.totals[0] + 100, *ge.totals[1:])
    after_deal = replayed(match, 2)
    hands = sum(isinstance(e, HandEnded) for e in match)
    winner = match_result(  # RULES 8 on the lied totals
        totals, after_deal.rules.target, team_of(after_deal.first_of_game), hands
    )
    match[h1] = msgspec.structs.replace(he, scores=scores)
    match[end] = msgspec.structs.replace(ge, totals=totals, winner=winner)
    files["wrong_score.jsonl"] = lines_of(match)
    verdict("wrong_score.jsonl", [("score", h1), ("score", end)]
            + ([("score", end)] if winner != ge.winner else []))

    # unfinished: the same match cut short right before the lying hand_ended (the file truncated
    # there, so the chain holds): what is left is honest, but it is not the whole game (the log format:
    # a complete log ends with game_ended), so it never passes as one
    files["unfinished.jsonl"] = lines_of(match)[:h1]
    verdict("unfinished.jsonl", [("unfinished", h1 - 1)])

    # shifted_scores: the same match again; the server wrote the first hand 60 points too low for
    # team 1 alone and moved 30 points of the last hand from team 1 to team 0, and carried both
    # lies into the final totals (and the winner, if they change it); re-sealed. With wrong_score
    # (team 0 alone), the disputes hold a forged claim of either team and of both
    match, _ = play_disputed("fechado", 2, 1)
    ends = [i for i, e in enumerate(match) if isinstance(e, HandEnded)]
    end = seq_of(match, "game_ended")
    ge = match[end]
    assert len(ends) >= 2 and isinstance(ge, GameEnded)
    for i, (d0, d1) in ((ends[0], (0, -60)), (ends[-1], (30, -30))):
        he = match[i]
        assert isinstance(he, HandEnded)
        match[i] = msgspec.structs.replace(he, scores=(he.scores[0] + d0, he.scores[1] + d1))
    totals = (ge.totals[0] + 30, ge.totals[1] - 90)
    winner = match_result(totals, after_deal.rules.target, team_of(after_deal.first_of_game), len(ends))
    match[end] = msgspec.structs.replace(ge, totals=totals, winner=winner)
    files["shifted_scores.jsonl"] = lines_of(match)
    verdict("shifted_scores.jsonl", [("score", ends[0]), ("score", ends[-1]), ("score", end)]
            + ([("score", end)] if winner != ge.winner else []))

    # illegal_close: the server let a player go out by melding the last cards without a clean
    # canasta; its own scores follow (closing bonus included); re-sealed
    events, forged = first_seed(lambda s: play_disputed("stbl", 2, 100 + s, close_without_clean))
    files["illegal_close.jsonl"] = lines_of(events)
    verdict("illegal_close.jsonl", [("illegal", forged)])

    # closed_pile: the server let a player take the closed pile and meld without its top card
    # (STCL: the top card must go into the very next play, RULES 2 `pile_top_use` next_play)
    events, forged = first_seed(lambda s: play_disputed("stcl", 2, 200 + s, skip_pile_top, target=0))
    files["closed_pile_top_unused.jsonl"] = lines_of(events)
    verdict("closed_pile_top_unused.jsonl", [("illegal", forged)])

    # changed_card: someone edited a stored discard to a card the player did not hold; the chain
    # breaks at the next line and the replay stops at the edit (not re-sealed)
    honest, _ = play_disputed("stbl", 2, 11)
    lines = lines_of(honest)
    k = seq_of(honest, "discarded", len(honest) // 3)
    ev = honest[k]
    assert isinstance(ev, Discarded)
    held = replayed(honest, k).hands[ev.player]
    other = next(c for c in ALL_CARDS if c not in held)
    edited = msgspec.structs.replace(decode_event(lines[k]), card=other)
    lines[k] = encode_event(edited)
    files["changed_card.jsonl"] = lines
    verdict("changed_card.jsonl", [("illegal", k), ("integrity", k + 1)])

    # dropped_line: a `drew` line deleted from the stored file: the next line's seq jumps and its
    # prev no longer matches, and the replay meets a play where a draw was due (not re-sealed)
    lines = lines_of(honest)
    k = seq_of(honest, "drew", len(honest) // 2)
    assert isinstance(honest[k], Drew)
    files["dropped_line.jsonl"] = lines[:k] + lines[k + 1:]
    verdict("dropped_line.jsonl", [("integrity", k + 1), ("integrity", k + 1), ("illegal", k + 1)])

    # bad_commitment: the server reordered two cards of seat 0's hand after committing to the deal;
    # the game stays legal (a hand is a multiset) but the commitment exposes it; re-sealed
    events, _ = play_disputed("stbl", 2, 12)
    deal = events[1]
    assert isinstance(deal, HandStarted)
    hand0 = list(deal.hands[0])
    j = next(i for i in range(1, 11) if hand0[i] != hand0[0])
    hand0[0], hand0[j] = hand0[j], hand0[0]
    events[1] = msgspec.structs.replace(deal, hands=(tuple(hand0), *deal.hands[1:]))
    files["bad_commitment.jsonl"] = lines_of(events)
    verdict("bad_commitment.jsonl", [("deal", 1)])

    # unrevealed_commitment: the same swapped deal, but the server also left the salt out of that
    # hand's hand_ended, so the commitment cannot be checked: the log format makes a commitment never
    # revealed a deal problem of its own; re-sealed
    end = next(i for i, e in enumerate(events) if isinstance(e, HandEnded) and e.hand == deal.hand)
    events[end] = msgspec.structs.replace(events[end], salt=None)
    files["unrevealed_commitment.jsonl"] = lines_of(events)
    verdict("unrevealed_commitment.jsonl", [("deal", 1)])

    # bad_deal: a 4-player deal where one card of seat 2 became a third ace of spades; the deck is
    # wrong (the replay stops there) and the commitment no longer matches either; re-sealed
    events, _ = play_disputed("stbl", 4, 13)
    deal = events[1]
    assert isinstance(deal, HandStarted)
    hand2 = list(deal.hands[2])
    j = next(i for i, c in enumerate(hand2) if c != "AS")
    hand2[j] = "AS"
    events[1] = msgspec.structs.replace(deal, hands=(*deal.hands[:2], tuple(hand2), *deal.hands[3:]))
    files["bad_deal.jsonl"] = lines_of(events)
    verdict("bad_deal.jsonl", [("deal", 1), ("deal", 1)])

    out_dir.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (out_dir / name).write_bytes(b"".join(line + b"\n" for line in data))
    (out_dir / "expected.json").write_text(json.dumps(expected, indent=2, sort_keys=True) + "\n")
    return expected


if __name__ == "__main__":
    target_dir = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE
    for name, verdict_ in build(target_dir).items():
        print(f"{name:32} {verdict_}")
