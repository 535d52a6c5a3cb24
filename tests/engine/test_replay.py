"""Replaying a log re-runs every command and finds the first place it diverges."""

from __future__ import annotations

import msgspec
import pytest

from engine import bots
from engine.bots import basic
from engine.cards import CODES
from engine.decide import step
from engine.presets import PRESETS
from engine.replay import groups, verify
from engine.state import GameState
from schemas import commands as cmd
from schemas import events as ev

from .helpers import narrowed


def _bot_game(preset: str, seed: str) -> list[ev.Event]:
    s, log = step(GameState(), cmd.StartGame(rules=PRESETS[preset], seed=seed, at=0))
    t = 0
    while s.phase != "over":
        t += 100
        if s.phase == "bidding":
            seat = s.waiting.bit_length() - 1
            s, out = step(s, cmd.PlaceBid(seat=seat, bid=basic.choose_bid(s, seat), at=t))
        elif t % 700 == 0:
            seat = s.waiting.bit_length() - 1
            s, out = step(s, bots.timeout_command(s, seat, at=s.deadlines[seat]))
        else:
            seat = s.waiting.bit_length() - 1
            s, out = step(s, cmd.PlayCard(seat=seat, card=CODES[basic.choose_card(s, seat)], at=t))
        log += out
    return log


@pytest.mark.parametrize("preset", ["house", "classic", "club", "quick", "beginner"])
def test_a_whole_game_verifies(preset: str) -> None:
    log = _bot_game(preset, "5a" * 32)
    clocks_ran_out = (any(isinstance(e, ev.TimeBankUsed) for e in log)
                      or narrowed(log[-1], ev.GameEnded).reason == "forfeit")
    assert clocks_ran_out
    assert verify(log) is None


def test_a_tampered_score_is_the_first_divergence() -> None:
    log = _bot_game("house", "01" * 32)
    i = next(i for i, e in enumerate(log) if isinstance(e, ev.HandScored))
    scored = narrowed(log[i], ev.HandScored)
    team = scored.teams[0]
    log[i] = msgspec.structs.replace(
        scored, teams=(msgspec.structs.replace(team, delta=team.delta + 1), scored.teams[1]))
    d = verify(log)
    assert d is not None
    assert d.index == i
    assert d.reason == "the engine produces other events"
    assert narrowed(d.produced[0], ev.HandScored).teams[0].delta == team.delta


def test_a_card_the_seat_did_not_hold_is_refused_on_replay() -> None:
    log = _bot_game("classic", "02" * 32)
    i = next(i for i, e in enumerate(log) if isinstance(e, ev.CardPlayed))
    seat = narrowed(log[i], ev.CardPlayed).seat
    dealt = next(e for e in log if isinstance(e, ev.HandDealt))
    foreign = dealt.hands[(seat + 1) % 4][0]
    log[i] = msgspec.structs.replace(log[i], card=foreign)
    d = verify(log)
    assert d is not None and d.index == i
    assert d.error is not None and d.error.startswith("card_not_in_hand")


def test_groups_end_at_the_final_state() -> None:
    log = _bot_game("quick", "03" * 32)
    *_, (_index, _, after, divergence) = groups(log)
    assert divergence is None
    assert after.phase == "over" and after.version == len(log)


def test_timeline_shows_deals_tricks_clocks_and_the_score_breakdown() -> None:
    from engine.timeline import timeline

    log = _bot_game("house", "5a" * 32)
    text = "\n".join(timeline(log))
    dealt = next(e for e in log if isinstance(e, ev.HandDealt))
    assert " ".join(dealt.hands[2]) in text
    assert "time bank block spent" in text
    assert "trick 13:" in text and "-> won by S" in text
    assert "contract" in text and "total" in text
    assert text.splitlines()[-1].split()[0] == str(len(log))  # numbered by version
    assert "game over" in text


def test_timeline_and_board_name_the_seats_as_people_know_them() -> None:
    from engine.evolve import fold
    from engine.timeline import board, seat_names, timeline
    from engine.views import operator_view, view

    log = _bot_game("house", "5c" * 32)
    names = seat_names(("p-ada", "bot:basic", "p-ben", "bot:expert"), ("Ada", "Bot 2", None))
    assert names == ("Ada", "Bot 2 (basic)", "p-ben", "Bot 4 (expert)")
    text = "\n".join(timeline(log, names=names))
    assert "S0 Ada bids" in text and "S3 Bot 4 (expert) plays" in text
    n = next(k for k, e in enumerate(log, 1) if isinstance(e, ev.TrickWon))
    state = fold(log[:n])
    full = operator_view(state)
    lines = board(full, names)
    assert lines[1].startswith("  team 0 (S0 Ada & S2 p-ben):")
    assert sum(" ".join(h) in "\n".join(lines) for h in full.hands) == 4
    seen = "\n".join(board(view(state, 1), names))
    assert seen.count("cards, unseen)") == 3 and "S1 Bot 2 (basic)" in seen


def test_timeline_stops_after_the_asked_event() -> None:
    from engine.timeline import timeline

    log = _bot_game("classic", "5b" * 32)
    lines = list(timeline(log, until=10))
    numbered = [line.split()[0] for line in lines if not line.startswith("      ")]
    assert numbered == [str(v) for v in range(1, 11)]
