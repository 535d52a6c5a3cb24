"""Whole tournaments of every format played through ``decide`` to the end: one champion,
a full ranking, a stream that folds to the state, and folding while deciding the same as
deciding then folding."""

from __future__ import annotations

import copy
import random

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schemas.tournaments import commands as cmd
from schemas.tournaments import events as ev
from services.tournaments import formats
from services.tournaments.decide import decide, standings_of
from services.tournaments.errors import TournamentError
from services.tournaments.state import fold

from .driver import STARTS, play_out, registered
from .driver import settings as make_settings

SETTINGS = settings(max_examples=15, derandomize=True, deadline=None)

FORMATS = [("single_elimination", {"third_place": True}), ("single_elimination", {}),
           ("double_elimination", {}), ("double_elimination", {"grand_final_reset": False}),
           ("round_robin", {}), ("round_robin", {"groups": 2}), ("swiss", {}),
           ("double_round_robin", {}), ("double_round_robin", {"groups": 2})]


@SETTINGS
@given(fmt=st.sampled_from(FORMATS), teams=st.integers(4, 13), seed=st.integers(0, 2**32))
def test_every_tournament_ends_with_one_champion_and_the_stream_folds_to_the_state(
        fmt: tuple[ev.FormatKind, dict], teams: int, seed: int) -> None:
    kind, options = fmt
    run = registered(make_settings(kind, 16, **options), teams)
    play_out(run, random.Random(seed), draws=formats.of(kind).draws)
    assert run.state.status == "finished"
    assert run.state.champion in run.state.seeds
    assert sorted(run.state.ranking) == sorted(run.state.seeds)
    assert run.state.ranking[0] == run.state.champion
    assert fold(run.events) == run.state
    # Stored and read back, the events are the same facts.
    wire = [msgspec.json.encode(e) for e in run.events]
    assert [msgspec.json.decode(w, type=ev.TournamentEvent) for w in wire] == run.events
    # Each team plays at most once a round.
    for r in run.state.rounds:
        teams_in = [t for m in r.match_ids for t in (run.state.matches[m].pairing.home,
                                                     run.state.matches[m].pairing.away)]
        assert len(teams_in) == len(set(teams_in))


@settings(max_examples=25, deadline=None)
@given(kind=st.sampled_from(sorted(formats.FORMATS)),
       teams=st.integers(4, 9), seed=st.integers(0, 2**32))
def test_deciding_into_the_state_adds_what_deciding_then_folding_does(
        kind: ev.FormatKind, teams: int, seed: int) -> None:
    runs = []
    for folding in (False, True):
        run = registered(make_settings(kind, teams=16), teams)
        run.fold = folding
        play_out(run, random.Random(seed))
        runs.append(run)
    plain, folded = runs
    assert folded.events == plain.events
    assert folded.state.version == plain.state.version
    assert standings_of(folded.state) == standings_of(plain.state)
    assert folded.state == plain.state == fold(plain.events)


def test_a_refusal_decided_into_the_state_leaves_it_as_it_was() -> None:
    run = registered(make_settings("swiss"), 4)
    run.fold = True
    run.do(cmd.Start(at=STARTS))
    run.do(cmd.PairRound(at=STARTS, seed="11" * 16))
    before = copy.deepcopy(run.state)
    with pytest.raises(TournamentError):
        decide(run.state, cmd.RecordResult(at=STARTS, match_id="R9-9", outcome="home"),
               fold=True)
    assert run.state == before
