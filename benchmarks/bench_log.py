"""Log and archive figures: decode and append rates, and bytes per event in each form.

Run `python benchmarks/bench_log.py [--quick]` for a table; `measure(quick)` returns the rows.
The games are synthetic but shaped like real ones (4 players, a 108-card deal, then about 80
small events per hand: draws, discards, melds, lay-offs, a taken pile now and then); their
moves are random rather than legal, which if anything makes them harder to compress. Every
timed step is one fresh process (the median of 3 in the full run) that reads or rebuilds its input
untimed and reports CPU seconds, except the appends with fsync: an fsync waits for the disk, not
the CPU, so those two rows are wall time (in a fresh process too).
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import msgspec
import zstandard

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fresh import CPU, WALL, cpu_of, fresh, fresh_cpu, row  # noqa: E402

from buraco_events.core.cards import make_deck, sort_key  # noqa: E402
from buraco_events.core.gate import team_of  # noqa: E402
from buraco_events.log import archive
from buraco_events.log.writer import FsyncPolicy, open_log, write_log  # noqa: E402
from buraco_events.model.events import (  # noqa: E402
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


N_GAMES = {True: 40, False: 400}  # quick, full
SEED = 2026


def _games(quick: bool) -> list[list[Event]]:
    rng = random.Random(SEED)
    return [synthetic_game(rng, i) for i in range(N_GAMES[quick])]


def _lines(path: str) -> list[bytes]:
    return Path(path).read_bytes().splitlines()


def cpu_decode(kind: str, path: str) -> float:
    """In a fresh process: CPU seconds of decoding every line of `path` one way."""
    lines = _lines(path)
    if kind == "typed":
        typed = msgspec.json.Decoder(AnyEvent)
        return cpu_of(lambda: [typed.decode(x) for x in lines])
    if kind == "untyped":
        untyped = msgspec.json.Decoder()
        return cpu_of(lambda: [untyped.decode(x) for x in lines])
    if kind == "stdlib":
        return cpu_of(lambda: [json.loads(x) for x in lines])
    decoder = msgspec.json.Decoder(AnyEvent)
    packed = [encode_msgpack(decoder.decode(x)) for x in lines]
    return cpu_of(lambda: [decode_msgpack(b) for b in packed])


def append_times(quick: bool, folder: str) -> dict[str, tuple[float, float, int]]:
    """In a fresh process: (wall, CPU, events) of appending games with each fsync policy."""
    few = _games(quick)[: 10 if quick else 40]
    out: dict[str, tuple[float, float, int]] = {}
    policies: tuple[FsyncPolicy, ...] = ("hand", "event", "none")
    for fsync in policies:
        games = few[:3] if fsync == "event" else few
        wall, cpu = time.perf_counter(), time.process_time()
        for i, game in enumerate(games):
            with open_log(Path(folder) / f"{fsync}-{i}.jsonl", fsync=fsync) as w:
                for event in game:
                    w.append(event)
        out[fsync] = (time.perf_counter() - wall, time.process_time() - cpu,
                      sum(map(len, games)))
    return out


def cpu_pack(logs: str, bza: str) -> tuple[float, float]:
    """In a fresh process: CPU seconds of packing the logs, and the archive's bytes per event."""
    result = []
    cpu = cpu_of(lambda: result.append(archive.pack(logs, bza)))
    return cpu, result[0].bytes_per_event


def cpu_unpack(bza: str, out: str) -> float:
    """In a fresh process: CPU seconds of unpacking the archive into a new folder."""
    return cpu_of(lambda: archive.unpack(bza, out))


def measure(quick: bool) -> list[Row]:
    """Return the figures: decode and append rates, and bytes per event in each form."""
    games = _games(quick)
    sealed = [seal_lines(g) for g in games]
    lines = [line for g in sealed for line in g]
    n = len(lines)
    runs = 1 if quick else 3
    rate = f"events/s ({CPU})"
    typed = msgspec.json.Decoder(AnyEvent)
    packed = [encode_msgpack(typed.decode(line)) for line in lines]

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        path = folder / "lines.jsonl"
        path.write_bytes(b"".join(x + b"\n" for x in lines))
        cpu = {kind: fresh_cpu(cpu_decode, kind, str(path), runs=runs)
               for kind in ("typed", "stdlib", "untyped", "msgpack")}
        typed_rate = n / cpu["typed"]
        rows = [
            row("decode JSON Lines, typed (msgspec)", typed_rate, rate,
                "stdlib json.loads", n / cpu["stdlib"]),
            row("decode JSON Lines, typed (msgspec)", typed_rate, rate,
                "msgspec untyped decode", n / cpu["untyped"]),
            row("decode msgpack, typed", n / cpu["msgpack"], rate,
                "decode JSON Lines, typed", typed_rate),
        ]

        appends = folder / "appends"
        appends.mkdir()
        times = fresh(append_times, quick, str(appends))
        per_hand = times["hand"][2] / times["hand"][0]
        rows.append(row("append, fsync per hand", per_hand, f"events/s ({WALL})",
                        "fsync per event", times["event"][2] / times["event"][0]))
        rows.append(row("append, no fsync", times["none"][2] / times["none"][1], rate))

        logs = folder / "logs"
        logs.mkdir()
        for i, game in enumerate(games):
            write_log(logs / f"{i:06d}.jsonl", game)
        bza = folder / "games.bza"
        pack_s, bytes_per_event = fresh(cpu_pack, str(logs), str(bza))
        unpack_s = fresh(cpu_unpack, str(bza), str(folder / "out"))

    jsonl = sum(map(len, lines)) + n
    msgpack_bytes = sum(map(len, packed))
    joined = b"".join(line + b"\n" for line in lines)
    zstd19 = len(zstandard.ZstdCompressor(level=19).compress(joined))
    rows += [
        row("bytes/event, JSON Lines", jsonl / n, "B/event"),
        row("bytes/event, msgpack", msgpack_bytes / n, "B/event", "JSON Lines", jsonl / n),
        row("bytes/event, archive (.bza)", bytes_per_event, "B/event",
            "zstd -19 of JSON Lines", zstd19 / n),
        row("archive pack", n / pack_s, rate),
        row("archive unpack", n / unpack_s, rate),
    ]
    return rows


def main() -> None:
    """Print the figures as a table."""
    from report import print_table

    quick = "--quick" in sys.argv
    print_table(measure(quick), f"log ({'quick' if quick else 'full'})")


if __name__ == "__main__":
    main()
