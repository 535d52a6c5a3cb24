"""Properties of random legal games under every preset and random valid profiles.

Games come from the random-game driver (``randomgame``): every command goes
through ``step``. For each game: the deck is conserved card for card, a hand is
13 tricks that the two teams share, totals are the prior plus the hand deltas,
the fold of the events is the state ``step`` returned, no view and no event as
delivered to a seat leaks anything that seat may not know, and the engine
accepts exactly the moves the seat's view offers. Examples are derandomized so
that CI is deterministic.
"""

from __future__ import annotations

import os
import re
from itertools import pairwise
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from engine.cards import card_id, codes
from engine.decide import step
from engine.errors import CODES, RuleError
from engine.evolve import evolve, fold
from engine.play import deck_of
from engine.presets import PRESETS, RulesError, resolve
from engine.records import judge, judge_line
from engine.state import BIDDING, OVER, PLAY, GameState
from engine.views import redact, view
from schemas import commands as cmd
from schemas import events as ev
from schemas.rules import Rules

from .randomgame import Steps, play_game, play_hand

# More examples for a deeper (still deterministic) run: ENGINE_PROPERTY_SCALE=20.
SCALE = int(os.environ.get("ENGINE_PROPERTY_SCALE", "1"))
SETTINGS = settings(max_examples=12 * SCALE, derandomize=True, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])

# Every preset, and a few fixed overrides that reach the rarer paths.
FIXED = [*PRESETS.values(), *(resolve(x) for x in (
    {"preset": "house", "blind_nil_pass": 2, "blind_nil_margin": 0},
    {"preset": "house", "blind_nil_margin": None, "spades_broken_by": "play_on_other_suit"},
    {"preset": "classic", "blind_nil": True, "blind_nil_margin": None,
     "spades_broken_by": "any_spade"},
    {"preset": "house", "blind_nil_pass": 1, "bidding": "sequential", "deuce_order": "spade_high"},
    {"preset": "classic", "deck": "deuce_ace", "failed_nil": "help_partner",
     "ten_for_200": True},
    {"preset": "classic", "deck": "jokers", "board": 3, "boston": "bonus",
     "boston_needs_bid": True},
    {"preset": "club", "deck": "deuces", "bag_penalty": 0, "blitz": True},
))]

OPTIONS = st.fixed_dictionaries({"preset": st.sampled_from(sorted(PRESETS))}, optional={
    "deck": st.sampled_from(["standard", "jokers_deuces", "jokers", "deuces", "deuce_ace"]),
    "deuce_order": st.sampled_from(["diamond_high", "spade_high"]),
    "bidding": st.sampled_from(["sequential", "simultaneous"]),
    "nil": st.booleans(),
    "board": st.integers(0, 13),
    "blind_nil": st.booleans(),
    "blind_nil_pass": st.integers(0, 2),
    "blind_nil_margin": st.one_of(st.none(), st.integers(0, 200)),
    "failed_nil": st.sampled_from(["bags_scored", "bags_unscored", "nothing", "help_partner"]),
    "spades_broken_by": st.sampled_from(["any_spade", "play_on_other_suit"]),
    "boston": st.sampled_from(["off", "bonus", "win"]),
    "boston_needs_bid": st.booleans(),
    "ten_for_200": st.booleans(),
    "bag_limit": st.integers(1, 12),
    "bag_penalty": st.integers(0, 150),
    "bag_carry": st.booleans(),
    "target": st.one_of(st.none(), st.integers(1, 600)),
    "max_hands": st.one_of(st.none(), st.integers(1, 5)),
    "tie": st.sampled_from(["play_on", "draw"]),
    "floor": st.one_of(st.none(), st.integers(-400, -1)),
    "abandon": st.sampled_from(["bot", "forfeit"]),
    "blitz": st.booleans(),
})


@st.composite
def any_rules(draw, profile: str) -> Rules:
    """The named preset; or, for "variants", one of the fixed overrides or a random
    profile the engine accepts."""
    if profile in PRESETS:
        return PRESETS[profile]
    if draw(st.booleans()):
        return draw(st.sampled_from(FIXED[len(PRESETS):]))
    try:
        return resolve(draw(OPTIONS))
    except RulesError:
        assume(False)
        raise


# Each property runs for every preset and for the variants.
PROFILES = pytest.mark.parametrize("profile", [*PRESETS, "variants"])


SCORES = st.sampled_from([(0, 0), (0, 150), (230, 0), (-120, 40), (480, 470)])


class Game(tuple):
    """``(rules, steps)`` of one random game, shown by how to replay it."""

    how: str = ""

    def __repr__(self) -> str:
        return self.how


@st.composite
def games(draw, profile: str) -> Game:
    """One externally dealt hand or a short seeded game, played at random."""
    r = draw(any_rules(profile))
    seed = draw(st.integers(0, 2**32 - 1))
    scores = draw(SCORES)
    bags = draw(st.sampled_from([(0, 0), (8, 9)]))
    extras = draw(st.booleans())
    if draw(st.booleans()):
        game = Game((r, play_hand(seed, r, scores=scores, bags=bags, extras=extras)))
        game.how = f"play_hand({seed}, {r!r}, scores={scores}, bags={bags}, extras={extras})"
    else:
        game = Game((r, play_game(seed, r, scores=scores, bags=bags, max_hands=2,
                                  extras=extras)))
        game.how = (f"play_game({seed}, {r!r}, scores={scores}, bags={bags}, max_hands=2, "
                    f"extras={extras})")
    return game


def _start_of(steps: Steps) -> ev.GameStarted:
    first = steps[0][1][0]
    assert isinstance(first, ev.GameStarted)
    return first


def _events(steps: Steps) -> list[ev.Event]:
    return [e for _, es in steps for e in es]


def _states_by_event(steps: Steps):
    """(state before, event, state after) for every event, by folding one at a time."""
    s = GameState()
    for _, events in steps:
        for e in events:
            after = evolve(s, e)
            yield s, e, after
            s = after


@PROFILES
@SETTINGS
@given(st.data())
def test_cards_conserved_and_thirteen_tricks_a_hand(profile: str, data: st.DataObject) -> None:
    """Hands plus played cards are always exactly the deck; a hand is 13 tricks whose
    winners' counts are the seats' tricks, and the two teams' tricks sum to 13."""
    game = data.draw(games(profile))
    r, steps = game
    deck_mask = deck_of(r).mask
    played = 0
    tricks_won: list[int] = []
    for _, e, s in _states_by_event(steps):
        if isinstance(e, ev.HandDealt):
            played, tricks_won = 0, []
            assert all(len(h) == 13 for h in e.hands)
            assert sorted(c for h in e.hands for c in h) == sorted(codes(deck_mask))
        elif isinstance(e, ev.CardPlayed):
            bit = 1 << card_id(e.card)
            assert not played & bit
            played |= bit
        elif isinstance(e, ev.TrickWon):
            tricks_won.append(e.seat)
            assert e.trick_no == len(tricks_won) <= 13
        elif isinstance(e, ev.HandScored):
            assert len(tricks_won) == 13 and played == deck_mask
            assert e.tricks == tuple(tricks_won.count(x) for x in range(4))
            assert (e.tricks[0] + e.tricks[2]) + (e.tricks[1] + e.tricks[3]) == 13
        if s.phase in ("bidding", "passing", "play"):
            union = 0
            for h in s.hands:
                assert not union & h
                union |= h
            assert not union & played
            assert union | played == deck_mask
            assert sum(h.bit_count() for h in s.hands) + played.bit_count() == 52


@PROFILES
@SETTINGS
@given(st.data())
def test_totals_equal_prior_plus_hand_deltas(profile: str, data: st.DataObject) -> None:
    """Each hand's score is the previous total plus the hand's delta, and the final
    totals are the starting scores plus the sum of every delta. Bags carry from hand
    to hand: every penalty takes the limit off the count, which stays below it."""
    game = data.draw(games(profile))
    r, steps = game
    start = _start_of(steps)
    running = list(start.scores)
    bags = list(start.bags)
    for e in _events(steps):
        if isinstance(e, ev.HandScored):
            for t in (0, 1):
                team = e.teams[t]
                assert team.score_after == running[t] + team.delta
                running[t] = team.score_after
                total = bags[t] + team.bags_gained
                if not r.bag_penalty:
                    assert (team.bags_after, team.bag_penalty) == (total, 0)
                elif r.bag_carry:
                    n = team.bag_penalty // r.bag_penalty
                    assert team.bags_after == total - n * r.bag_limit
                    assert 0 <= team.bags_after < r.bag_limit
                bags[t] = team.bags_after
                assert team.delta == (team.contract_points + team.nil_points
                                      + team.failed_nil_points + team.boston_points
                                      - team.bag_penalty)
    final = steps[-1][0]
    assert list(final.scores) == running
    deltas = [sum(h.teams[t].delta for h in final.sheet) for t in (0, 1)]
    assert list(final.scores) == [start.scores[t] + deltas[t] for t in (0, 1)]


@PROFILES
@SETTINGS
@given(st.data())
def test_fold_of_the_events_equals_the_state_from_step(profile: str, data: st.DataObject) -> None:
    """The state of a game is the fold of its events: after every command, folding
    the events so far gives exactly the state ``step`` returned."""
    game = data.draw(games(profile))
    _, steps = game
    s = GameState()
    for state, events in steps:
        s = fold(events, s)
        assert s == state
        assert s.version == state.version
    decoded = msgspec.json.decode(msgspec.json.encode(_events(steps)), type=list[ev.GameEvent])
    assert fold(decoded) == steps[-1][0]


_CARD_TOKEN = re.compile(r'"([2-9TJQKA][SHDC]|BJ|LJ)"')


def _tokens(obj: Any) -> set[str]:
    return set(_CARD_TOKEN.findall(msgspec.json.encode(obj).decode()))


def _check_no_leak(s: GameState, e: ev.Event, viewer: int | None) -> None:
    v = view(s, viewer)
    delivered = redact(e, s, viewer)
    shown = _tokens(v) | (_tokens(delivered) if delivered is not None else set())
    others = 0
    for x in range(4):
        if x != viewer:
            others |= s.hands[x]
    if viewer is not None:
        others &= ~s.passes[viewer]  # the cards it gave its partner in the exchange
    assert not shown & set(codes(others)), (type(e).__name__, viewer)
    if viewer is None:
        assert v.hand is None
    elif s.looked >> viewer & 1:
        assert set(v.hand or ()) == set(codes(s.hands[viewer]))
        assert set(v.legal_cards) <= set(v.hand or ())
    else:
        assert v.hand is None
        assert not shown & set(codes(s.hands[viewer])), (type(e).__name__, viewer)
    if s.phase != OVER and s.seed:
        assert s.seed not in msgspec.json.encode(v).decode()
        assert delivered is None or s.seed not in msgspec.json.encode(delivered).decode()
    if s.revealed:
        assert v.bids == tuple(b if b >= 0 else None for b in s.bids)
    if not s.revealed and s.rules is not None and s.rules.bidding == "simultaneous":
        for x in range(4):
            if x != viewer:
                assert v.bids[x] is None and not v.blind[x]
        if isinstance(e, ev.BidPlaced) and e.seat != viewer:
            assert isinstance(delivered, ev.BidPlaced)
            assert delivered.bid == -1 and not delivered.blind


@PROFILES
@SETTINGS
@given(st.data())
def test_views_never_leak(profile: str, data: st.DataObject) -> None:
    """For every event and every seat (and a spectator): the seat's view and the
    event as delivered to it hold no card of another seat's hand, no secret bid
    before the reveal, no shuffle seed before the end; a spectator sees no hand, and
    a seat that has not looked sees none of its own cards. A seat that looked sees
    exactly its hand, and everyone sees the bids once revealed."""
    game = data.draw(games(profile))
    _, steps = game
    checked = 0
    for _, e, s in _states_by_event(steps):
        for viewer in (0, 1, 2, 3, None):
            _check_no_leak(s, e, viewer)
            checked += 1
    assert checked >= 5 * len(steps)


_CARD_WORD = re.compile(r"\b([2-9TJQKA][SHDC]|BJ|LJ)\b")


def _accepted(state: GameState, command: cmd.Command) -> bool:
    """Whether ``step`` accepts the command; a refusal's message must name no card
    of another seat but the one the command itself named."""
    try:
        step(state, command)
    except RuleError as e:
        assert e.code in CODES, e.code
        seat = getattr(command, "seat", None)
        others = {c for x in range(4) if x != seat for c in codes(state.hands[x])}
        named = {getattr(command, "card", "")}
        assert not (set(_CARD_WORD.findall(e.message)) & others) - named, e.message
        return False
    return True


@PROFILES
@settings(SETTINGS, max_examples=6 * SCALE)
@given(st.data())
def test_engine_never_offers_an_illegal_move_nor_refuses_a_legal_one(
        profile: str, data: st.DataObject) -> None:
    """At every turn, for every card of the deck, the engine accepts a play iff the
    seat's view lists it as legal; for every bid, iff the view offers it; blind nil
    iff the view offers it and it is the seat's turn; and nobody else may act. No
    refusal's message names another seat's cards."""
    game = data.draw(games(profile))
    r, steps = game
    deck_cards = codes(deck_of(r).mask)
    for state, _ in steps:
        if state.phase == PLAY:
            seat = state.waiting.bit_length() - 1
            legal = set(view(state, seat).legal_cards)
            assert legal
            for c in deck_cards:
                assert _accepted(state, cmd.PlayCard(seat=seat, card=c)) == (c in legal), c
            other = (seat + 1) % 4
            if state.hands[other]:
                card = codes(state.hands[other])[0]
                assert not _accepted(state, cmd.PlayCard(seat=other, card=card))
        elif state.phase == BIDDING:
            for seat in range(4):
                v = view(state, seat)
                offered = set(v.legal_bids)
                assert bool(offered) == bool(state.waiting >> seat & 1)
                for b in range(-1, 15):
                    assert _accepted(state, cmd.PlaceBid(seat=seat, bid=b)) == (b in offered)
                # ``blind_nil_offered`` says the option is still open to the seat (it has
                # not looked); it can be taken on the seat's turn.
                on_turn = bool(state.waiting >> seat & 1)
                assert _accepted(state, cmd.BidBlindNil(seat=seat)) == (v.blind_nil_offered
                                                                        and on_turn)


@PROFILES
@settings(SETTINGS, max_examples=3 * SCALE)
@given(st.data())
def test_rule_error_leaves_the_state_unchanged(profile: str, data: st.DataObject) -> None:
    """A refused command raises and changes nothing: the state is an immutable value,
    and the game's next events still take it to the same next state."""
    game = data.draw(games(profile))
    _, steps = game
    for (before, _), (after, events) in pairwise(steps):
        snapshot = msgspec.structs.asdict(before)
        for bad in (cmd.PlaceBid(seat=0, bid=99), cmd.PlayCard(seat=0, card="ZZ"),
                    cmd.ReturnToSeat(seat=9), cmd.DealHand(dealer=0, hands=())):
            try:
                step(before, bad)
            except RuleError:
                pass
            else:
                raise AssertionError(f"{bad} was accepted")
        assert msgspec.structs.asdict(before) == snapshot
        assert fold(events, before) == after


def test_full_games_under_every_preset() -> None:
    """Whole seeded matches under each preset end by the preset's own rule, with the
    deck conserved, totals consistent and the fold equal to the state throughout."""
    for name, r in PRESETS.items():
        ends = set()
        for seed in range(3):
            steps = play_game(seed, r, max_hands=400)
            final = steps[-1][0]
            assert fold(_events(steps)) == final
            assert final.phase == OVER, (name, seed)
            ends.add(final.end_reason)
            start = _start_of(steps)
            assert list(final.scores) == [start.scores[t] + sum(h.teams[t].delta
                                                                for h in final.sheet)
                                          for t in (0, 1)]
            for h in final.sheet:
                assert sum(h.tricks) == 13
        allowed = {"house": {"target"}, "quick": {"hands"}, "classic": {"target"},
                   "beginner": {"target", "boston"}, "club": {"target", "floor"}}[name]
        assert ends <= allowed, (name, ends)


def _record_of(r: Rules, steps: Steps, scores: tuple[int, int],
               bags: tuple[int, int]) -> dict[str, Any]:
    """The hand a ``play_hand`` game played, written as a hand record (game-record.md)."""
    events = _events(steps)
    dealt = next(e for e in events if isinstance(e, ev.HandDealt))
    bids, blind = [0] * 4, [False] * 4
    passes: list[list[str]] = [[] for _ in range(4)]
    for e in events:
        if isinstance(e, ev.BidPlaced):
            bids[e.seat], blind[e.seat] = e.bid, e.blind
        elif isinstance(e, ev.CardsPassed):
            passes[e.seat] = list(e.cards)
    rec = {"id": "p", "rules": msgspec.to_builtins(r), "dealer": dealt.dealer,
           "hands": [list(h) for h in dealt.hands], "bids": bids, "blind_nil": blind,
           "plays": [e.card for e in events if isinstance(e, ev.CardPlayed)],
           "prior": {"scores": list(scores), "bags": list(bags)}}
    if any(passes):
        rec["passes"] = passes
    return rec


@PROFILES
@SETTINGS
@given(st.data())
def test_record_read_without_events_judges_as_stepping_each_bid_and_card(
        profile: str, data: st.DataObject) -> None:
    """``spades record verify`` reads a hand's bids and plays with the rules' functions
    and no event per move, from a line decoded with its card codes checked; whatever
    the record (played at random, then perhaps a card changed, dropped, swapped or
    added, a bid changed, a blind nil marked or a card written another way), its
    verdict is the one stepping every move through ``decide`` gives."""
    r = data.draw(any_rules(profile))
    seed = data.draw(st.integers(0, 2**32 - 1))
    scores, bags = data.draw(SCORES), data.draw(st.sampled_from([(0, 0), (8, 9)]))
    steps = play_hand(seed, r, scores=scores, bags=bags)
    rec = _record_of(r, steps, scores, bags)
    won = [e.seat for e in _events(steps) if isinstance(e, ev.TrickWon)]
    got = judge_line(msgspec.json.encode(rec))
    assert got["ok"] is True and got["trick_winners"] == won, got
    assert got == judge(rec, quick=False)
    plays = rec["plays"]
    some = st.integers(0, len(plays) - 1)
    seat = data.draw(st.integers(0, 3))
    change = data.draw(st.sampled_from(
        ["card", "drop", "swap", "add", "cut", "bid", "blind", "written"]))
    if change == "card":
        plays[data.draw(some)] = data.draw(st.sampled_from(
            [*codes(deck_of(r).mask), "2H", "BJ", "ZZ", "10s", "as"]))
    elif change == "drop":
        del plays[data.draw(some)]
    elif change == "swap":
        i, j = data.draw(some), data.draw(some)
        plays[i], plays[j] = plays[j], plays[i]
    elif change == "add":
        plays.append(data.draw(st.sampled_from(plays)))
    elif change == "cut":
        del plays[data.draw(some):]
    elif change == "bid":
        rec["bids"][seat] = data.draw(st.sampled_from([-1, 0, 1, 4, 13, 14, True, "3"]))
    elif change == "blind":
        rec["blind_nil"][seat] = not rec["blind_nil"][seat]
    else:
        card = rec["hands"][seat][0]
        rec["hands"][seat][0] = card.lower() if card[0] != "T" else "10" + card[1]
    assert judge_line(msgspec.json.encode(rec)) == judge(rec, quick=False)
