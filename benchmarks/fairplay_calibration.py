"""Calibrate the fair-play check: false positives on honest players, detection of cheating bots.

Populations: an honest or cheating bot in the seats of one team (seats 0 and 2 of a 4-player
game, seat 0 of a 2-player one), greedy bots in the others, games of one hand (`--target 0`).
Each seat of the population is one *player-game*: its decisions judged at the check's default
deals (`fairplay.judge`), on every oracle for an honest population and on its own oracle for a
cheating one. The populations are played in turn, one game each a round, so a run stopped at
any time (`--minutes`) has every population about equally; every player-game is appended to
`--raw` as it is judged, and `--analyse` weighs a raw file again without playing.

The weighing: 20-game samples (`--sample-games`) are drawn from each population's pool of
player-games (`--draws` of them: 20 player-games, none twice in a sample, when the pool holds
five samples' worth or more; else a bootstrap on decisions, as many decisions as 20 player-games hold on average
drawn with replacement, which ignores that a game's decisions hang together; either way the
samples overlap, so the spread between them is understated) and weighed as `buraco fairplay`
weighs a player (`verdict.weigh`, the default thresholds). The whole pool is also weighed at
once (`pool`): for an honest population, its matches against the expected ones check the honest
model itself. Reported per population and oracle: the share of samples at `review` and at
`note` or above (an honest population: the false-positive rate; a cheating one on its own
oracle: the detection rate), with a 95% upper bound on an honest rate counted on the
independent samples the pool holds (pool // 20); the p-value quantiles of the honest samples,
from which the thresholds are set (`suggested`); and a ROC plot sweeping the `review` threshold.

    nice -n 10 python benchmarks/fairplay_calibration.py --minutes 80 \
        --raw /tmp/fairplay_raw.jsonl --out benchmarks/results/fairplay_calibration.json \
        --plot benchmarks/results/fairplay_roc.png

The same arguments give the same games and the same figures (every game, judging and draw of
samples comes from its own seed).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import time
from pathlib import Path
from typing import Any

import msgspec

from buraco_events.bots.registry import bot_by_name, run_game
from buraco_events.fairplay.judge import DEFAULT_SAMPLES, Judged, judge_game
from buraco_events.fairplay.oracle import oracles_for
from buraco_events.fairplay.verdict import MIN_INFORMATIVE, NOTE_P, REVIEW_P, level_of, weigh

#: (variant, players, bot, kind): kind "honest", or the oracle a cheating bot peeks at
POPULATIONS: tuple[tuple[str, int, str, str], ...] = (
    # in order of need: a run stopped early has the must-holds first (the false positives on
    # honest players, the strongest among them, and the detection of partner and hands at rate 1)
    ("stbl", 4, "greedy", "honest"),
    ("stbl", 4, "peek:partner:samples=8", "partner"),
    ("stbl", 4, "expert:samples=16", "honest"),
    ("stbl", 4, "peek:hands:samples=8", "hands"),
    ("stbl", 4, "expert:samples=16:noise=50", "honest"),
    ("stbl", 4, "peek:partner:samples=8:rate=0.5", "partner"),
    ("stbl", 4, "peek:hands:samples=8:rate=0.5", "hands"),
    ("stbl", 4, "expert:samples=4", "honest"),
    ("stbl", 4, "peek:stock:samples=8", "stock"),
    ("burraco", 2, "greedy", "honest"),
    ("burraco", 2, "expert:samples=16", "honest"),
    ("burraco", 2, "peek:hands:samples=8", "hands"),
    ("burraco", 2, "peek:stock:samples=8", "stock"),
    ("stbl", 4, "peek:partner:samples=8:rate=0.2", "partner"),
    ("stbl", 4, "peek:hands:samples=8:rate=0.2", "hands"),
    ("burraco", 2, "peek:hands:samples=8:rate=0.5", "hands"),
    ("stbl", 4, "peek:stock:samples=8:rate=0.5", "stock"),
    ("burraco", 2, "peek:hands:samples=8:rate=0.2", "hands"),
)
#: the pool, in samples, from which samples are drawn as whole player-games
POOL_FACTOR = 5
#: the p-value thresholds tried when suggesting the levels' thresholds
GRID = tuple(10.0 ** -k for k in range(1, 13))


def _key(p: tuple[str, int, str, str]) -> str:
    return f"{p[0]}:{p[1]} {p[2]}"


def _play(index: int, game: int, samples: int, target: int) -> list[dict[str, Any]]:
    """Play game `game` of population `index` and judge its seats; return one raw record a seat."""
    variant, players, spec, kind = POPULATIONS[index]
    seed = 1_000_000 * index + game
    mine = [0, 2] if players == 4 else [0]
    bots = [bot_by_name(spec if s in mine else "greedy") for s in range(players)]
    events, _ = run_game(variant, players, seed, bots, f"cal-{index}-{game}", target=target)
    oracles = None if kind == "honest" else (kind,)
    records = []
    for seat in mine:
        judged = judge_game(events, seat, samples, f"cal/{seed}", oracles=oracles)
        # the words are not needed to weigh: left out to keep the raw file small
        slim = [msgspec.structs.replace(j, seen="", candidates=[],
                                        oracles=[msgspec.structs.replace(s, hidden="") for s in j.oracles])
                for j in judged]
        records.append({"population": _key(POPULATIONS[index]), "kind": kind, "game": game, "seat": seat,
                        "judged": msgspec.to_builtins(slim)})
    return records


def run(args: argparse.Namespace) -> None:
    """Play the populations in turn until `--games` each or `--minutes` have passed."""
    start = time.perf_counter()
    cpu = time.process_time()
    args.raw.parent.mkdir(parents=True, exist_ok=True)
    done: set[tuple[str, int]] = set()
    if args.raw.exists():  # a run resumed: the games already judged are kept
        for line in args.raw.read_text().splitlines():
            record = json.loads(line)
            done.add((record["population"], record["game"]))
    chosen = list(range(min(args.populations, len(POPULATIONS))))
    with args.raw.open("a") as raw:
        for game in range(args.games):
            for index in chosen:
                if time.perf_counter() - start > 60 * args.minutes:
                    print(f"stopped at {args.minutes} minutes, in round {game}", flush=True)
                    return
                if (_key(POPULATIONS[index]), game) in done:
                    continue
                t0 = time.process_time()
                for record in _play(index, game, args.samples, args.target):
                    raw.write(json.dumps(record) + "\n")
                raw.flush()
                print(f"{time.strftime('%H:%M:%S')} game {game} {_key(POPULATIONS[index])}: "
                      f"{time.process_time() - t0:.1f} s CPU (total {time.process_time() - cpu:.0f} s)", flush=True)


def _upper95(k: int, n: int) -> float:
    """Return the 95% one-sided upper bound (Clopper-Pearson) of a rate seen k times in n."""
    if n <= 0:
        return 1.0
    if k >= n:
        return 1.0
    lo, hi = k / n, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        cdf = sum(math.comb(n, i) * mid ** i * (1 - mid) ** (n - i) for i in range(k + 1))
        lo, hi = (mid, hi) if cdf > 0.05 else (lo, mid)
    return hi


def analyse(args: argparse.Namespace) -> dict[str, Any]:
    """Weigh the raw file's player-games in drawn samples; return the figures."""
    pools: dict[str, list[list[Judged]]] = {}
    kinds: dict[str, str] = {}
    for line in args.raw.read_text().splitlines():
        record = json.loads(line)
        pools.setdefault(record["population"], []).append(msgspec.convert(record["judged"], list[Judged]))
        kinds[record["population"]] = record["kind"]
    populations = []
    honest_draws: dict[str, list[dict[str, tuple[float, int, int, float]]]] = {}
    for p in POPULATIONS:
        key = _key(p)
        if key not in pools:
            continue
        pool, kind = pools[key], kinds[key]
        oracles = oracles_for(p[1]) if kind == "honest" else (kind,)
        rng = random.Random(f"draws/{key}")
        size = args.sample_games
        draws = []
        decisions = [d for g in pool for d in g]
        by_games = len(pool) >= POOL_FACTOR * size
        # a sample's decisions: `size` player-games of the pool (none twice), or, from a pool
        # too small for samples that differ (20 of 24 games are nearly the same 20), as many
        # decisions as `size` player-games hold on average drawn one by one with replacement (a
        # bootstrap on decisions: games drawn twice whole would count their evidence twice over)
        per_sample = round(size * len(decisions) / len(pool))
        for _ in range(args.draws):
            picked = ([d for g in rng.sample(pool, size) for d in g] if by_games
                      else [rng.choice(decisions) for _ in range(per_sample)])
            reports = weigh(picked, oracles)
            draws.append({r.oracle: (r.p_value, r.informative, r.matches, r.expected) for r in reports})
        independent = max(1, len(pool) // size)
        if kind == "honest":
            honest_draws[key] = draws
        figures: dict[str, Any] = {}
        for oracle in oracles:
            ps = [d[oracle] for d in draws]
            review = sum(level_of(pv, inf) == "review" for pv, inf, _, _ in ps) / len(ps)
            note = sum(level_of(pv, inf) != "none" for pv, inf, _, _ in ps) / len(ps)
            figures[oracle] = {
                "review": round(review, 4), "note_or_review": round(note, 4),
                "review_upper95": round(_upper95(round(review * independent), independent), 3),
                "informative_mean": round(sum(x[1] for x in ps) / len(ps), 1),
                "matches_mean": round(sum(x[2] for x in ps) / len(ps), 1),
                "expected_mean": round(sum(x[3] for x in ps) / len(ps), 1),
                "p_values": sorted(x[0] for x in ps),
            }
        whole = weigh([d for g in pool for d in g], oracles)  # the whole pool weighed at once
        populations.append({
            "population": key, "variant": p[0], "players": p[1], "bot": p[2], "kind": kind,
            "player_games": len(pool), "decisions": sum(len(g) for g in pool),
            "independent_samples": independent,
            "drawn": "player-games, none twice in a sample" if by_games else
                     f"{per_sample} decisions a sample, with replacement (a bootstrap on decisions)",
            "oracles": figures,
            "pool": {r.oracle: {"informative": r.informative, "matches": r.matches, "expected": r.expected,
                                "p_value": r.p_value} for r in whole},
        })
    return {"sample_games": args.sample_games, "draws": args.draws, "deals": args.samples,
            "thresholds": {"note": NOTE_P, "review": REVIEW_P, "min_informative": MIN_INFORMATIVE},
            "suggested": _suggest(honest_draws), "summary": _summary(populations), "populations": populations}


def _flagged(draws: list[dict[str, tuple[float, int, int, float]]], threshold: float, informative: int) -> float:
    """Return the share of samples with some oracle's p-value below `threshold` on at least
    `informative` informative decisions."""
    return sum(any(pv < threshold and inf >= informative for pv, inf, _, _ in d.values()) for d in draws) / len(draws)


def _suggest(honest: dict[str, list[dict[str, tuple[float, int, int, float]]]]) -> dict[str, Any]:
    """Return the largest thresholds on the grid at which every honest population has at most 1%
    (review, with `MIN_INFORMATIVE` informative decisions) and 5% (note) of its samples flagged
    on some oracle, and each population's share at the thresholds suggested."""
    if not honest:
        return {}
    review = next((t for t in GRID if all(_flagged(d, t, MIN_INFORMATIVE) <= 0.01 for d in honest.values())), None)
    note = next((t for t in GRID if all(_flagged(d, t, 0) <= 0.05 for d in honest.values())), None)
    return {"review": review, "note": note,
            "rule": "review: at most 1%, note: at most 5% of each honest population's samples flagged on some oracle",
            "flagged_any_oracle_at_default": {k: {"review": _flagged(d, REVIEW_P, MIN_INFORMATIVE),
                                                  "note": _flagged(d, NOTE_P, 0)} for k, d in honest.items()}}


def _summary(populations: list[dict[str, Any]]) -> dict[str, Any]:
    honest = [p for p in populations if p["kind"] == "honest"]
    return {
        "false_positive_review": {p["population"]: max(f["review"] for f in p["oracles"].values()) for p in honest},
        "false_positive_note": {p["population"]: max(f["note_or_review"] for f in p["oracles"].values())
                                for p in honest},
        "detection_review": {p["population"]: p["oracles"][p["kind"]]["review"]
                             for p in populations if p["kind"] != "honest"},
        "detection_note": {p["population"]: p["oracles"][p["kind"]]["note_or_review"]
                           for p in populations if p["kind"] != "honest"},
        "player_games": {p["population"]: p["player_games"] for p in populations},
    }


def roc(figures: dict[str, Any], path: Path) -> None:
    """Plot, per cheating population, the share of its samples flagged on its oracle against the
    share of honest samples (every honest population of the same game) flagged on that oracle, as
    the review threshold sweeps."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.5, 6))
    pops = figures["populations"]
    for p in (p for p in pops if p["kind"] != "honest"):
        honest = [q for h in pops if h["kind"] == "honest" and h["variant"] == p["variant"]
                  for q in h["oracles"][p["kind"]]["p_values"]]
        cheat = p["oracles"][p["kind"]]["p_values"]
        cuts = sorted(set(honest + cheat + [0.0, 1.0]))
        xs = [sum(h <= c for h in honest) / max(1, len(honest)) for c in cuts]
        ys = [sum(q <= c for q in cheat) / max(1, len(cheat)) for c in cuts]
        ax.plot(xs, ys, marker=".", markersize=3, label=f"{p['variant']} {p['bot']} ({p['player_games']} pg)")
    chance = [i / 200 for i in range(201)]
    ax.plot(chance, chance, ls=":", color="grey", label="chance")
    ax.set_xscale("symlog", linthresh=0.01)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("honest 20-game samples flagged (false positives; linear to 1%, log above)")
    ax.set_ylabel("cheating 20-game samples flagged (detection)")
    ax.set_title("fair-play check: ROC over the review threshold", fontsize=10)
    ax.legend(fontsize=6, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games per population at the most")
    parser.add_argument("--minutes", type=float, default=60.0, help="stop starting games after this")
    parser.add_argument("--sample-games", type=int, default=20, help="player-games per sample weighed")
    parser.add_argument("--draws", type=int, default=200, help="samples drawn per population")
    parser.add_argument("--samples", type=int, default=DEFAULT_SAMPLES, help="the check's deals per side (cap)")
    parser.add_argument("--target", type=int, default=0, help="match target (0: one hand a game)")
    parser.add_argument("--populations", type=int, default=len(POPULATIONS),
                        help="play the first N populations of the list only (in order of need)")
    parser.add_argument("--raw", type=Path, default=Path("/tmp/fairplay_calibration_raw.jsonl"))
    parser.add_argument("--analyse", action="store_true", help="weigh the raw file only, play nothing")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/fairplay_calibration.json"))
    parser.add_argument("--plot", type=Path, default=None, help="the ROC plot (PNG)")
    args = parser.parse_args()
    if not args.analyse:
        run(args)
    figures = analyse(args)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"args": {k: str(v) for k, v in vars(args).items()}} | figures, indent=1) + "\n")
    print(json.dumps({"suggested": figures["suggested"], "summary": figures["summary"]}, indent=1))
    if args.plot is not None:
        roc(figures, args.plot)


if __name__ == "__main__":
    main()
