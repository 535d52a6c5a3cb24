"""A sealed seed: a game dealt from a seed supplied from outside (every table of a
duplicate tournament round shares one) keeps it from every seat and spectator even at
its end, since other tables may still be playing the same deals; the stored events keep
it whole, and the game's end lists each hand's score for comparing tables."""

from __future__ import annotations

from engine.replay import verify
from engine.state import GameState
from engine.views import redact, view
from schemas import commands as cmd
from schemas import events as ev

from .helpers import HOUSE, refusal, rules
from .randomgame import play_game

VIEWERS = (None, 0, 1, 2, 3)


def test_a_sealed_game_shows_its_seed_to_nobody_even_at_the_end() -> None:
    for n in range(3):
        steps = play_game(n, rules("classic"), sealed=True)
        final, events = steps[-1][0], [e for _, es in steps for e in es]
        ended = events[-1]
        assert isinstance(ended, ev.GameEnded) and ended.sealed and ended.seed
        assert final.phase == "over"
        for seat in VIEWERS:
            assert view(final, seat).seed is None
            for after, batch in steps:
                for e in batch:
                    shown = redact(e, after, seat)
                    assert getattr(shown, "seed", "") == ""


def test_an_ordinary_game_reveals_its_seed_at_the_end() -> None:
    steps = play_game(1, rules("classic"))
    final, ended = steps[-1][0], steps[-1][1][-1]
    assert isinstance(ended, ev.GameEnded) and not ended.sealed
    for seat in VIEWERS:
        assert view(final, seat).seed == ended.seed != ""
        assert redact(ended, final, seat).seed == ended.seed  # type: ignore[union-attr]


def test_only_a_supplied_seed_is_sealed() -> None:
    assert refusal(GameState(), cmd.StartGame(rules=HOUSE, sealed=True)) == "bad_seed"


def test_the_end_lists_each_hand_score_as_the_sheet_says() -> None:
    for n in range(4):
        events = [e for _, es in play_game(n, rules("quick"), sealed=n % 2 == 0) for e in es]
        ended = events[-1]
        assert isinstance(ended, ev.GameEnded)
        sheet = [e for e in events if isinstance(e, ev.HandScored)]
        assert ended.deals == tuple((h.teams[0].delta, h.teams[1].delta) for h in sheet)
        assert len(ended.deals) == ended.hands_played


def test_a_sealed_game_replays_from_its_stored_events() -> None:
    events = [e for _, es in play_game(7, rules("house"), sealed=True) for e in es]
    assert verify(events) is None
