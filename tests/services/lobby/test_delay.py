"""A delayed watcher's events: each one released once three tricks were completed
after it, in order, and all that is left when the game ends."""

from __future__ import annotations

from engine.state import GameState
from schemas.events import BidPlaced, CardPlayed, Event, GameEnded, HandScored, TeamScore, TrickWon
from services.lobby.edge.delay import Delay

CARDS = ("2C", "3C", "4C", "5C")
TEAM = TeamScore(contract=6, counted=6, made=True, contract_points=60, overtricks=0,
                 nil_points=0, failed_nil_tricks=0, failed_nil_points=0, boston=False,
                 boston_points=0, bags_gained=0, bag_penalty=0, delta=60, bags_after=0,
                 score_after=60)


def trick(no: int) -> list[Event]:
    return [*(CardPlayed(seat=s, card=c) for s, c in enumerate(CARDS)),
            TrickWon(trick_no=no, seat=3, cards=CARDS)]


def test_an_event_is_released_once_three_tricks_were_completed_after_it() -> None:
    delay = Delay(3)
    events: list[Event] = [BidPlaced(seat=s, bid=3) for s in range(4)]
    for no in range(1, 6):
        events += trick(no)
    released: dict[int, int] = {}  # version -> the version whose arrival released it
    for v, e in enumerate(events, 1):
        for _, after in delay.add(e, GameState(version=v)):
            released[after.version] = v
    won = [v for v, e in enumerate(events, 1) if isinstance(e, TrickWon)]
    # The bids, the first trick's cards and its end (its winner collecting it) show
    # together when the third trick is won: never four cards lying without a winner.
    assert [released[v] for v in range(1, won[0] + 1)] == [won[2]] * won[0]
    # The second trick, end and all, when the fourth is won; the third with the fifth.
    assert [released[v] for v in range(won[0] + 1, won[1] + 1)] == [won[3]] * 5
    assert max(released) == won[2] and released[won[2]] == won[4]
    assert delay.shown.version == max(released)


def test_a_hands_score_goes_out_with_its_last_trick() -> None:
    """The score of a hand follows from its last trick: a delayed watcher sees both at
    once, not the thirteenth trick collected and the score a trick later."""
    delay = Delay(2)
    score = HandScored(hand_no=1, tricks=(3, 3, 3, 4), teams=(TEAM, TEAM))
    events: list[Event] = [*trick(13), score, *trick(1), *trick(2)]
    released: dict[int, int] = {}
    for v, e in enumerate(events, 1):
        for _, after in delay.add(e, GameState(version=v)):
            released[after.version] = v
    # The last trick and the score when the next hand's second trick is won; the next
    # hand's first trick when its third would be (not yet).
    assert released == {v: 11 for v in range(1, 7)} | {v: 16 for v in range(7, 12)}


def test_the_end_of_the_game_releases_everything() -> None:
    delay = Delay(3)
    end = GameEnded(winner=0, reason="hands", scores=(10, 0), bags=(0, 0), hands_played=1)
    events: list[Event] = [*trick(1), end]
    out = [after.version for v, e in enumerate(events, 1)
           for _, after in delay.add(e, GameState(version=v))]
    assert out == list(range(1, len(events) + 1))


def test_a_chat_line_waits_until_the_board_shows_the_moment_it_was_said() -> None:
    delay = Delay(3)
    events: list[Event] = [BidPlaced(seat=s, bid=3) for s in range(4)]
    for no in range(1, 5):
        events += trick(no)
    heard: dict[str, tuple[int, bool]] = {}  # line -> (the version that let it be heard, bot)
    for v, e in enumerate(events, 1):
        list(delay.add(e, GameState(version=v)))
        if v == 2:
            assert delay.say(v, False, "nice bid")  # said while the board is behind
        if v == 6:
            assert delay.say(v, True, "a bot's quip")
        for bot, text in delay.heard():
            heard[text] = (v, bot)
    won = [v for v, e in enumerate(events, 1) if isinstance(e, TrickWon)]
    # Said after the second bid and during the first trick: shown with them when the
    # third trick is won, the bot's flag kept.
    assert heard == {"nice bid": (won[2], False), "a bot's quip": (won[2], True)}
    assert list(delay.heard()) == []  # once each


def test_a_line_said_with_nothing_held_back_is_not_held() -> None:
    delay = Delay(3)
    assert not delay.say(0, False, "hello")  # before the game: the board is not behind
    end = GameEnded(winner=0, reason="hands", scores=(10, 0), bags=(0, 0), hands_played=1)
    for v, e in enumerate([*trick(1), end], 1):
        list(delay.add(e, GameState(version=v)))
    assert not delay.say(6, False, "gg") and list(delay.heard()) == []
