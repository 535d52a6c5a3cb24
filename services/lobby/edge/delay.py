"""A game as a delayed watcher sees it: each event held back until a number of tricks
were completed after it.

An event that happened when the game had completed ``k`` tricks is released once the
game has completed ``k + n``: so nothing, a bid or a card, reaches a delayed watcher
before ``n`` tricks were played after a live spectator saw it. A trick's end
(``TrickWon``, and the ``HandScored`` of a hand's last trick) counts as part of that
trick: it follows from the four cards, so it goes out with the card that completed the
trick, and a delayed watcher sees a full trick collected by its winner as a live one
does, not four cards lying unclaimed for a whole trick. The game's end releases
everything.
Table talk is held the same way: a line reaches a delayed watcher once its board
shows the moment the line was said, so "we set them" never comes tricks before the
set does.
``live_watcher`` says who watches such a game live all the same, and by which role
(``still_live``: whether that role still lets them, ``edge.rolecheck``).
"""

from __future__ import annotations

import collections
import contextlib
from collections.abc import Iterable, Iterator

from engine.evolve import evolve
from engine.state import GameState
from schemas.events import Event, GameEnded, HandScored, TrickWon
from services.lobby.accounts import auth
from services.lobby.accounts.auth import Claims
from services.lobby.base.errors import LobbyError
from services.lobby.base.store import Pool
from services.lobby.clients.tournaments import TournamentBus
from services.lobby.matches import store as matchstore

HELD_LINES = 200  # chat lines held for delayed watchers at most


class Delay:
    """Events in, in order; the ones now old enough out, with the state after each."""

    def __init__(self, tricks: int) -> None:
        self.tricks = tricks
        self.done = 0  # tricks completed in the game so far
        self.shown = GameState()  # the state after the last event released
        self.held: collections.deque[tuple[Event, GameState, int]] = collections.deque()
        # Chat lines said ahead of what is shown: (the game's version then, by a bot,
        # the frame); the oldest dropped past HELD_LINES.
        self.lines: collections.deque[tuple[int, bool, str]] = collections.deque(
            maxlen=HELD_LINES)

    def add(self, event: Event, after: GameState) -> Iterator[tuple[Event, GameState]]:
        """Take in the next event; yield those it lets out, oldest first."""
        trick_end = isinstance(event, TrickWon | HandScored)
        if isinstance(event, TrickWon):
            self.done += 1
        self.held.append((event, after, self.done - 1 if trick_end else self.done))
        over = isinstance(event, GameEnded)
        while self.held and (over or self.held[0][2] + self.tricks <= self.done):
            shown, state, _ = self.held.popleft()
            self.shown = state
            yield shown, state


    def say(self, version: int, bot: bool, frame: str) -> bool:
        """A chat line said when the game was at ``version``: True when delayed
        watchers are behind that and it is held for them (``heard``)."""
        if self.shown.version >= version:
            return False
        self.lines.append((version, bot, frame))
        return True

    def heard(self) -> Iterator[tuple[bool, str]]:
        """The held lines said by the moment now shown, oldest first, once each."""
        while self.lines and self.lines[0][0] <= self.shown.version:
            _, bot, frame = self.lines.popleft()
            yield bot, frame


def delayed_state(events: Iterable[Event], tricks: int) -> GameState:
    """The state a delayed watcher sees after ``events``."""
    delay, state = Delay(tricks), GameState()
    for event in events:
        state = evolve(state, event)
        collections.deque(delay.add(event, state), maxlen=0)
    return delay.shown


async def live_watcher(pool: Pool, tournaments: TournamentBus, game_id: str,
                       me: Claims) -> str | None:
    """The role by which ``me`` watches ``game_id`` live though it is a delayed one's
    (None: ``me`` watches it delayed): an operator, or an organizer who organizes the
    tournament the game is part of; the role as the account holds it now
    (``auth.role_now``), so a revoked one watches as anyone does."""
    role = await auth.role_now(pool, me)
    if role == auth.OPERATOR:
        return role
    if role not in auth.MAY_ORGANIZE:
        return None
    match = await matchstore.match_of_game(pool, game_id)
    if match is None or match.origin != "tournament" or not match.origin_id:
        return None
    with contextlib.suppress(LobbyError):
        if (await tournaments.get(match.origin_id)).summary.organizer == me.player_id:
            return auth.ORGANIZER
    return None


def still_live(by_role: str, role: str) -> bool:
    """Whether one who watches live ``by_role`` still may, holding ``role`` now."""
    return role == auth.OPERATOR or (by_role == auth.ORGANIZER and role in auth.MAY_ORGANIZE)
