"""Calling matches: each paired match is opened through the lobby, and its answer recorded.

The lobby's ``open_match`` is idempotent by match id, and the id is derived from
the tournament and the match, so asking again (another copy, after a crash, after
the ready check's deadline) is never a second table: it returns the match's
current state. That state is the record: ``ready_check`` and ``started`` become
``MatchCalled``; ``starting`` (the game is being created) is asked again later, since
only a started match has a game to subscribe to; ``not_ready`` (the ready check ran
out, or someone declined) a no-show result against the team with an absent seat, or
a double forfeit when both teams have one. The ``LOBBY_MATCHES`` outcome, when it
arrives, is recorded the same way; when it is lost, the next ask after the deadline
finds the same.

A started match whose game has not reported an end after ``GAME_CHECK_MS`` is
looked at in the game's own store (``svc.game.since``, lichess's
``checkOngoingGames``): a game that ended there while its ``GameEnded`` never
arrived is recorded by the same path as the consumer's, once.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection
from typing import Protocol

import msgspec

from schemas.bus import EventEnvelope
from schemas.events import GameEnded
from schemas.matches import (
    MAX_READY_SECONDS,
    MatchOpened,
    MatchSeat,
    OpenMatch,
    lobby_match_id,
)
from schemas.matches import game_of as game_of_match
from schemas.notes import Note, TournamentCall
from schemas.seats import TEAM_SEATS, seated
from schemas.tournaments import commands as cmd
from schemas.tournaments import events as ev
from services.platform import logs
from services.platform.events import game_registry
from services.tournaments.decide import bot_level
from services.tournaments.state import MatchState, Tournament

_log = logs.get("tournaments")
HOME_SEATS, AWAY_SEATS = TEAM_SEATS

OpenMatchFn = Callable[[OpenMatch], Awaitable[MatchOpened]]
LastEventFn = Callable[[str], Awaitable[EventEnvelope | None]]
OUTCOMES: dict[int | None, ev.Outcome] = {0: "home", 1: "away", None: "draw"}


class Calls(Protocol):
    """What calling needs of other services: opening a match (the lobby), a note to a
    player, and a game's last stored event (the game workers). ``MatchCalls`` on the bus."""

    async def open_match(self, req: OpenMatch) -> MatchOpened: ...

    async def note(self, player_id: str, note: Note) -> None: ...

    async def last_event(self, game_id: str) -> EventEnvelope | None: ...


def result_of(match_id: str, env: EventEnvelope, ended: GameEnded) -> cmd.RecordResult:
    """Team 0 (seats 0 and 2) is the home team. A game a player's leaving ended is a
    forfeit, which counts toward withdrawing the team that left. Each hand's score goes
    with the result: duplicate standings compare it with the other tables'."""
    return cmd.RecordResult(
        at=env.occurred_at_ms, match_id=match_id, outcome=OUTCOMES[ended.winner],
        reason="forfeit" if ended.reason == "forfeit" else "played", scores=ended.scores,
        bags_taken=ended.bags_taken, game_stream=env.stream,
        deals=tuple(ev.DealResult(deal_no=i, home=home, away=away)
                    for i, (home, away) in enumerate(ended.deals, 1)))


class CallRefused(Exception):
    """The lobby or a game worker answered with an error (its code), or none answered."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code


def game_of(tournament_id: str, match_id: str) -> str:
    """The game id the lobby gives the match's game (derived from the lobby's match id,
    ``schemas.matches.game_of``), so a game's end finds its match even before the
    lobby's answer is recorded."""
    return game_of_match(lobby_match_id(tournament_id, match_id))


def seats_of(state: Tournament, m: MatchState) -> tuple[str, str, str, str]:
    """Player ids by seat: the home team at seats 0 and 2, the away team at 1 and 3."""
    return seated(state.teams[m.pairing.home].players, state.teams[m.pairing.away].players)


def request_of(state: Tournament, m: MatchState) -> OpenMatch:
    """The ask for a match's table; in a duplicate round, every table deals from the
    round's seed, which the lobby seals from the players until the round reveals it."""
    s = state.settings
    assert s is not None
    rounds = state.rounds
    deal_seed = (rounds[m.pairing.round_no - 1].deal_seed
                 if s.format.deals == "duplicate" and len(rounds) >= m.pairing.round_no else "")
    return OpenMatch(
        match_id=lobby_match_id(state.tournament_id, m.pairing.match_id),
        seats=tuple(MatchSeat(bot=level) if (level := bot_level(p)) else MatchSeat(player_id=p)
                    for p in seats_of(state, m)),  # type: ignore[arg-type]
        rules=msgspec.to_builtins(s.rules), rated=s.rated, origin="tournament",
        origin_id=state.tournament_id, ready_seconds=min(s.no_show_seconds, MAX_READY_SECONDS),
        deal_seed=deal_seed)


def no_show(absent: Collection[int]) -> ev.Outcome | None:
    """Who wins when ``absent`` seats did not come: a team missing a player forfeits."""
    home = any(seat in absent for seat in HOME_SEATS)
    away = any(seat in absent for seat in AWAY_SEATS)
    if home and away:
        return "double_forfeit"
    return "away" if home else "home" if away else None


def answer(match_id: str, state: str, game_id: str, table_id: str, ready_by: int,
           absent: Collection[int], at: int,
           seated: tuple[str, str, str, str] = ("", "", "", "")) -> cmd.TournamentCommand | None:
    """The command that records what the lobby says of a match (None: nothing to record);
    a no-show names the players of ``seated`` who stayed away."""
    if state in ("ready_check", "started"):
        return cmd.CallMatch(at=at, match_id=match_id, game_id=game_id, table_id=table_id,
                             state=state, ready_by=ready_by)  # type: ignore[arg-type]
    if state == "not_ready":
        outcome = no_show(absent)
        if outcome is not None:
            return cmd.RecordResult(at=at, match_id=match_id, outcome=outcome,
                                    reason="no_show", absent=tuple(
                                        seated[s] for s in sorted(absent) if seated[s]))
    return None


def asker(open_match: OpenMatchFn, last_event: LastEventFn) -> Callable[
        [Tournament, MatchState, int], Awaitable[cmd.TournamentCommand | None]]:
    """What ``TournamentStore.fire_calls`` asks for each due match."""
    registry = game_registry()

    async def ended(m: MatchState) -> cmd.TournamentCommand | None:
        try:
            env = await last_event(m.game_id)
        except CallRefused as exc:
            _log.warning("game_not_read", game=m.game_id, code=exc.code)
            return None
        if env is None or env.type != "GameEnded":
            return None
        game_ended = registry.decode(env.type, env.schema_version, env.body)
        assert isinstance(game_ended, GameEnded)
        _log.warning("result_adopted", match=m.pairing.match_id, game=m.game_id)
        return result_of(m.pairing.match_id, env, game_ended)

    async def ask(state: Tournament, m: MatchState, now_ms: int) -> cmd.TournamentCommand | None:
        if m.outcome is not None:
            return None
        if m.call == "started":
            return await ended(m)
        try:
            opened = await open_match(request_of(state, m))
        except CallRefused as exc:
            _log.warning("match_not_opened", tournament=state.tournament_id,
                         match=m.pairing.match_id, code=exc.code)
            return None
        command = answer(m.pairing.match_id, opened.state, opened.game_id, opened.table_id,
                         opened.ready_by, {*opened.absent, *opened.declined}, now_ms,
                         seats_of(state, m))
        if command is None and opened.state == "starting":
            _log.info("match_starting", tournament=state.tournament_id,
                      match=m.pairing.match_id)
        elif command is None:
            _log.warning("match_failed", tournament=state.tournament_id,
                         match=m.pairing.match_id, state=opened.state)
        return command

    return ask


def calls_to_send(state: Tournament, events: list[ev.Event]) -> list[tuple[str, TournamentCall]]:
    """The ``tournament_call`` notes recorded calls send: (player id, note) for each seat of
    each match called (when its ready check begins, and again when its game starts). Only
    the second names the table and game: before, they do not exist."""
    notes = []
    for event in events:
        if isinstance(event, ev.MatchCalled):
            m = state.matches[event.match_id]
            started = event.state == "started"
            notes += [(player, TournamentCall(tournament_id=state.tournament_id,
                                              round=m.pairing.round_no,
                                              table_id=m.table_id if started else "",
                                              game_id=m.game_id if started else "",
                                              seat=seat, state=event.state,
                                              ready_by=event.ready_by))
                      for seat, player in enumerate(seats_of(state, m))
                      if not bot_level(player)]
    return notes
