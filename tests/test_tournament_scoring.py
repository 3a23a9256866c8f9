"""Tournament victory points and movements: the Italian scales at every boundary (a property over
differences in steps of 5), and who meets whom (no entry twice a round, Mitchell's opponents for
3 to 15 tables, Swiss without repeats while a pairing without one exists, byes that rotate)."""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from buraco_events.tournament import movements
from buraco_events.tournament.scale import (
    ITALIAN_3,
    ITALIAN_4,
    ScaleError,
    check_scale,
    parse_scale_csv,
    victory_points,
)

#: the scales as the log format's tables print them: "low-high" differences, then the winner's VP
TABLE_3 = ["0-50", "55-150", "155-250", "255-350", "355-500", "505-650", "655-800", "805-1000",
           "1005-1250", "1255-1500"]
TABLE_4 = ["0-100", "105-300", "305-500", "505-700", "705-900", "905-1100", "1105-1300",
           "1305-1500", "1505-1700", "1705-2000"]


def printed_vp(table: list[str], diff: int) -> tuple[int, int]:
    """The printed table read as a person reads it: the band holding `diff`, 10-10 rising by one."""
    for i, band in enumerate(table):
        low, high = map(int, band.split("-"))
        if low <= diff <= high:
            return 10 + i, 10 - i
    assert diff > int(table[-1].split("-")[1])
    return 20, 0  # "over" the last band


@pytest.mark.parametrize(("scale", "table"), [(ITALIAN_3, TABLE_3), (ITALIAN_4, TABLE_4)])
def test_every_printed_boundary_of_the_italian_scales(scale, table) -> None:
    for band in table:
        low, high = map(int, band.split("-"))
        for diff in (low, high, high + 5):
            win, lose = printed_vp(table, diff)
            assert victory_points((2000 + diff, 2000), scale) == (win, lose), diff
            assert victory_points((-40, -40 - diff), scale) == (win, lose), diff  # negative totals
            assert victory_points((100, 100 + diff), scale) == (lose, win), diff
    assert victory_points((50, 0), ITALIAN_3) == (10, 10) and victory_points((55, 0), ITALIAN_3) == (11, 9)
    assert victory_points((150, 0), ITALIAN_3) == (11, 9) and victory_points((155, 0), ITALIAN_3) == (12, 8)
    assert victory_points((1505, 0), ITALIAN_3) == (20, 0) and victory_points((2005, 0), ITALIAN_4) == (20, 0)


@given(st.integers(0, 1000).map(lambda k: 5 * k), st.integers(-400, 1200).map(lambda k: 5 * k),
       st.sampled_from(["3", "4"]))
def test_victory_points_follow_the_printed_scale_in_steps_of_5(diff: int, base: int, which: str) -> None:
    scale, table = (ITALIAN_3, TABLE_3) if which == "3" else (ITALIAN_4, TABLE_4)
    win, lose = printed_vp(table, diff)
    assert victory_points((base + diff, base), scale) == (win, lose)
    assert victory_points((base, base + diff), scale) == (lose, win)
    assert win + lose == 20


def test_a_tie_gives_the_first_row_as_written() -> None:
    assert victory_points((0, 0), ITALIAN_3) == (10, 10)
    odd = check_scale(((0, 12, 8), (None, 20, 0)))  # a scale whose first row is no draw
    assert victory_points((300, 300), odd) == (12, 8)
    assert victory_points((305, 300), odd) == (0, 20)[::-1]


def test_a_csv_scale_is_read_and_a_bad_one_named() -> None:
    rows = parse_scale_csv("max_diff,vp_high,vp_low\n0,10,10\n100,15,5\n,20,0\n")
    assert rows == ((0, 10, 10), (100, 15, 5), (None, 20, 0))
    for text, words in (("100,15,5\n50,12,8\n,20,0\n", "not above"), ("100,15,5\n", "last row"),
                        ("x,1,2\n1,a,3\n,2,1\n", "whole numbers"), ("1,2\n", "cells"),
                        (",20,0\n,20,0\n", "only the last row")):
        with pytest.raises(ScaleError, match=words):
            parse_scale_csv(text, "s.csv")


# -- movements -----------------------------------------------------------------------------------


def seated(p: movements.Pairing) -> list[int]:
    return [e for pair in p.pairs for e in pair] + ([p.bye] if p.bye else []) + p.idle


@pytest.mark.parametrize("tables", range(3, 16))
def test_mitchell_meets_the_expected_opponents(tables: int) -> None:
    for entries in (2 * tables, 2 * tables - 1):
        field = list(range(1, entries + 1))
        stay, move = field[0::2], field[1::2]
        rounds = movements.max_rounds("mitchell", entries)
        assert rounds == (tables if tables % 2 else tables - 1)
        met: dict[int, list[int | None]] = {e: [] for e in stay}
        byes = []
        for r in range(1, rounds + 1):
            p = movements.mitchell(field, r, set(field))
            assert sorted(seated(p)) == field  # everyone placed once, no one twice
            for a, b in p.pairs:
                assert a in stay and b in move  # the stationary line is team 0
                met[a].append(b)
            if p.bye is not None:
                met[p.bye].append(None)
                byes.append(p.bye)
        for e, opponents in met.items():
            assert len(opponents) == rounds and len(set(opponents)) == rounds, (e, opponents)
        line: set[int | None] = set(move) | ({None} if entries % 2 else set())  # None: the phantom
        if tables % 2:  # odd: a full movement meets every entry of the other line
            assert all(set(o) == line for o in met.values())
        else:  # even: the skip after half the rounds leaves out one seat of the other line
            assert all(len(line - set(o)) == 1 for o in met.values())
        assert len(byes) == len(set(byes))  # byes rotate


@pytest.mark.parametrize("entries", range(2, 12))
def test_round_robin_meets_everyone_once(entries: int) -> None:
    field = list(range(1, entries + 1))
    rounds = movements.max_rounds("round_robin", entries)
    pairs: Counter[frozenset[int]] = Counter()
    byes = []
    for r in range(1, rounds + 1):
        p = movements.round_robin(field, r, set(field))
        assert sorted(seated(p)) == field
        pairs.update(frozenset(x) for x in p.pairs)
        byes += [p.bye] if p.bye else []
    assert set(pairs) == {frozenset(x) for x in itertools.combinations(field, 2)}
    assert set(pairs.values()) == {1}
    assert sorted(byes) == (field if entries % 2 else [])


def test_a_withdrawn_entry_leaves_its_opponent_idle_in_a_fixed_movement() -> None:
    field = list(range(1, 9))
    p = movements.mitchell(field, 2, set(field) - {4})
    assert 4 not in seated(p) and len(p.idle) == 1 and p.bye is None
    assert sorted(seated(p)) == [e for e in field if e != 4]


def test_danish_pairs_by_rank_and_gives_the_bye_to_the_lowest_without_one() -> None:
    p = movements.danish([5, 2, 7, 1, 3], {3: 1})
    assert p.pairs == [(5, 2), (7, 3)] and p.bye == 1


def non_repeating_exists(field: list[int], played: set[frozenset[int]]) -> bool:
    """Brute force: is there any pairing (any bye) with no pair that met before?"""
    def match(rest: list[int]) -> bool:
        if not rest:
            return True
        a = rest[0]
        return any(frozenset((a, b)) not in played and match([x for x in rest[1:] if x != b])
                   for b in rest[1:])
    if len(field) % 2:
        return any(match([x for x in field if x != bye]) for bye in field)
    return match(field)


@pytest.mark.parametrize("seed", range(60))
def test_swiss_never_repeats_while_a_pairing_without_repeats_exists(seed: int) -> None:
    rng = random.Random(seed)
    n = rng.randint(3, 9)
    field = list(range(1, n + 1))
    played: set[frozenset[int]] = set()
    byes: Counter[int] = Counter()
    for _ in range(n + 1):
        ranked = rng.sample(field, n)
        p = movements.swiss(ranked, played, dict(byes))
        assert sorted(seated(p)) == field
        repeats = [x for x in p.pairs if frozenset(x) in played]
        if non_repeating_exists(field, played):
            assert not repeats, (ranked, played, p)
        if p.bye is not None:
            byes[p.bye] += 1
        played |= {frozenset(x) for x in p.pairs}


def test_swiss_and_danish_byes_rotate() -> None:
    field = list(range(1, 8))
    byes: Counter[int] = Counter()
    played: set[frozenset[int]] = set()
    for r in range(7):
        ranked = field[r:] + field[:r]
        p = movements.swiss(ranked, played, dict(byes))
        assert p.bye is not None and byes[p.bye] == 0  # no second bye before everyone had one
        byes[p.bye] += 1
        played |= {frozenset(x) for x in p.pairs}
    assert set(byes) == set(field)
    byes.clear()
    for _ in range(7):
        p = movements.danish(field, dict(byes))
        assert p.bye is not None and byes[p.bye] == 0
        byes[p.bye] += 1
