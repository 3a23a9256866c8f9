"""Log and archive figures: decode and append rates, and bytes per event in each form.

Run `python benchmarks/bench_log.py [--quick]` for a table; `measure(quick)` returns the rows.
The games are synthetic but shaped like real ones (4 players, a 108-card deal, then about 80
small events per hand: draws, discards, melds, lay-offs, a taken pile now and then); their
moves are random rather than legal, which if anything makes them harder to compress.
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import zstandard

from buraco_events import archive
from buraco_events.cards import make_deck, sort_key
from buraco_events.events import (
    AnyEvent,
    Discarded,
    Drew,
    Event,
    GameEnded,
    GameStarted,
    HandEnded,
    HandStarted,
    LaidOff,
    Melded,
    Note,
    TookPile,
    decode_msgpack,
    encode_msgpack,
    seal_lines,
)
from buraco_events.log import FsyncPolicy, open_log, write_log
from buraco_events.rules import team_of

Row = dict[str, Any]


def synthetic_game(rng: random.Random, number: int, hands: int = 3) -> list[Event]:
    """Return one synthetic 4-player game (seq and prev are set when it is written)."""
    events: list[Event] = [GameStarted(
        seq=0, game_id=f"g-{number:06d}", variant="stbl", players=("ana", "bruno", "caio", "dora")
    )]
    totals = [0, 0]
    for h in range(hands):
        deck = list(make_deck(4))
        rng.shuffle(deck)
        held = [deck[i * 11:(i + 1) * 11] for i in range(4)]
        stock = deck[66:]
        events.append(HandStarted(
            seq=0, hand=h, first=h % 4, hands=tuple(map(tuple, held)),
            deads=(tuple(deck[44:55]), tuple(deck[55:66])), stock=tuple(stock), discard=(),
        ))
        pile: list[str] = []
        team_melds: list[list[int]] = [[], []]
        melds = top = 0
        seat = h % 4
        while top < len(stock):
            hand = held[seat]
            if pile and rng.random() < 0.1:
                events.append(TookPile(seq=0, player=seat, cards=tuple(pile)))
                hand += pile
                pile = []
            else:
                events.append(Drew(seq=0, player=seat, card=stock[top]))
                hand.append(stock[top])
                top += 1
            roll = rng.random()
            if roll < 0.25 and len(hand) > 4:
                cards = sorted(rng.sample(hand, 3), key=sort_key)
                events.append(Melded(seq=0, player=seat, meld=melds, cards=tuple(cards)))
                team_melds[team_of(seat)].append(melds)
                melds += 1
            elif roll < 0.45 and team_melds[team_of(seat)] and len(hand) > 2:
                cards = rng.sample(hand, rng.randint(1, 2))
                meld = rng.choice(team_melds[team_of(seat)])
                events.append(LaidOff(seq=0, player=seat, meld=meld, cards=tuple(cards)))
            else:
                cards = []
            for card in cards:
                hand.remove(card)
            if rng.random() < 0.01:
                events.append(Note(seq=0, by="referee", text="slow play warning"))
            card = rng.choice(hand)
            hand.remove(card)
            pile.append(card)
            events.append(Discarded(seq=0, player=seat, card=card))
            seat = (seat + 1) % 4
        scores = (rng.randrange(-200, 2000, 5), rng.randrange(-200, 2000, 5))
        totals = [t + s for t, s in zip(totals, scores, strict=True)]
        events.append(HandEnded(
            seq=0, hand=h, reason="stock_exhausted", closed_by=None, scores=scores
        ))
    events.append(GameEnded(seq=0, totals=tuple(totals), winner=int(totals[1] > totals[0])))
    return events


def _rate(n: int, run: Callable[[], object], repeat: int) -> float:
    """Return items per second of the best of `repeat` runs."""
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - t)
    return n / best


def _row(name: str, value: float, unit: str, baseline: str | None = None,
         baseline_value: float | None = None) -> Row:
    return {"name": name, "value": value, "unit": unit, "baseline": baseline,
            "baseline_value": baseline_value}


def _append_rate(games: list[list[Event]], folder: Path, fsync: FsyncPolicy) -> float:
    t = time.perf_counter()
    n = 0
    for i, game in enumerate(games):
        with open_log(folder / f"{fsync}-{i}.jsonl", fsync=fsync) as w:
            for event in game:
                w.append(event)
        n += len(game)
    return n / (time.perf_counter() - t)


def measure(quick: bool) -> list[Row]:
    """Return the figures: decode and append rates, and bytes per event in each form."""
    rng = random.Random(2026)
    games = [synthetic_game(rng, i) for i in range(40 if quick else 400)]
    sealed = [seal_lines(g) for g in games]
    lines = [line for g in sealed for line in g]
    n = len(lines)
    repeat = 2 if quick else 5
    typed = msgspec.json.Decoder(AnyEvent)
    untyped = msgspec.json.Decoder()
    events = [typed.decode(line) for line in lines]
    packed = [encode_msgpack(e) for e in events]

    typed_rate = _rate(n, lambda: [typed.decode(line) for line in lines], repeat)
    rows = [
        _row("decode JSON Lines, typed (msgspec)", typed_rate, "events/s",
             "stdlib json.loads", _rate(n, lambda: [json.loads(x) for x in lines], repeat)),
        _row("decode JSON Lines, typed (msgspec)", typed_rate, "events/s",
             "msgspec untyped decode", _rate(n, lambda: [untyped.decode(x) for x in lines], repeat)),
        _row("decode msgpack, typed", _rate(n, lambda: [decode_msgpack(b) for b in packed], repeat),
             "events/s", "decode JSON Lines, typed", typed_rate),
    ]

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        few = games[: 10 if quick else 40]
        per_hand = _append_rate(few, folder, "hand")
        per_event = _append_rate(few[:3], folder, "event")
        rows.append(_row("append, fsync per hand", per_hand, "events/s",
                         "fsync per event", per_event))
        rows.append(_row("append, no fsync", _append_rate(few, folder, "none"), "events/s",
                         "fsync per hand", per_hand))

        logs = folder / "logs"
        logs.mkdir()
        for i, game in enumerate(games):
            write_log(logs / f"{i:06d}.jsonl", game)
        t = time.perf_counter()
        result = archive.pack(logs, folder / "games.bza")
        pack_s = time.perf_counter() - t
        t = time.perf_counter()
        archive.unpack(folder / "games.bza", folder / "out")
        unpack_s = time.perf_counter() - t

    jsonl = sum(map(len, lines)) + n
    msgpack_bytes = sum(map(len, packed))
    joined = b"".join(line + b"\n" for line in lines)
    zstd19 = len(zstandard.ZstdCompressor(level=19).compress(joined))
    rows += [
        _row("bytes/event, JSON Lines", jsonl / n, "B/event"),
        _row("bytes/event, msgpack", msgpack_bytes / n, "B/event", "JSON Lines", jsonl / n),
        _row("bytes/event, archive (.bza)", result.bytes_per_event, "B/event",
             "zstd -19 of JSON Lines", zstd19 / n),
        _row("archive pack", n / pack_s, "events/s"),
        _row("archive unpack", n / unpack_s, "events/s"),
    ]
    return rows


def main() -> None:
    """Print the figures as a table."""
    from report import print_table

    quick = "--quick" in sys.argv
    print_table(measure(quick), f"log ({'quick' if quick else 'full'})")


if __name__ == "__main__":
    main()
