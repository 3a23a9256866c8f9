"""A property over games of every preset: the club and tournament parameters at their defaults
(RULES 9: 0, 0, 0, 0, 0, yes, 0) change nothing. A game's rules object is written without them,
so its log is the bytes it was before they existed (the golden digests hold those bytes); and the
same events replayed under rules that name every one of them at its default are each accepted
and leave the same table, view by view, byte for byte."""

from __future__ import annotations

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from buraco_events.bots.registry import run_game, table_bots
from buraco_events.core.engine import play
from buraco_events.core.state import GameState
from buraco_events.model.events import GameStarted
from buraco_events.model.rules import CLUB_PARAMETERS, PRESETS, Rules
from buraco_events.play.sim import seat_bots
from buraco_events.views.projections import player_view


def _named_at_defaults(rules: Rules) -> Rules:
    """Return the rules with every club parameter given (not left unset) at its value."""
    return msgspec.structs.replace(rules, **{f: getattr(rules, name) for name, (f, _) in CLUB_PARAMETERS.items()})


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(list(PRESETS)), players=st.sampled_from([2, 4]),
       seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_club_parameters_at_their_defaults_change_nothing(variant: str, players: int, seed: int) -> None:
    bots = table_bots(seat_bots(["greedy", "random"], players))
    events, final = run_game(variant, players, seed, bots, "p", target=0)
    assert len(events) > 10  # a whole game, dealt and played
    first = events[0]
    assert isinstance(first, GameStarted) and first.rules is not None
    written = msgspec.json.decode(msgspec.json.encode(first))["rules"]
    # written as before: no club parameter, but the tournament turn of burraco-torneo
    given_club = set(written) & set(CLUB_PARAMETERS)
    assert given_club == ({"hands_per_game"} if first.rules.hands_per_game else set())
    named = _named_at_defaults(first.rules)
    assert set(msgspec.json.decode(msgspec.json.encode(named))) >= set(CLUB_PARAMETERS)
    plain, explicit = GameState(), GameState()
    for i, ev in enumerate(events):
        play(plain, ev)
        play(explicit, msgspec.structs.replace(ev, rules=named) if i == 0 else ev)  # type: ignore[call-arg]
        if i:  # the views after every event: the same bytes (the referee's and seat 0's)
            for seat in (None, 0):
                assert msgspec.json.encode(player_view(plain, seat)) == msgspec.json.encode(player_view(explicit, seat))
    assert explicit.hand_results == plain.hand_results == final.hand_results
    assert (explicit.totals, explicit.winner, explicit.phase) == (plain.totals, plain.winner, "over")
