"""Filling a gap in a versioned stream this gateway follows: a game's events (``Hub``),
a tournament's (``TournamentFeed``). Both hear their stream on a plain subscription,
where an event can be missed or come early; both ask the stream's owner (the game
worker, the tournament service) for what they lack the same way, here: again and
again while something is still missing, 0.2 s between asks, a second after the owner
did not answer. A failure of another kind ends the fill and is raised."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from tenacity import AsyncRetrying, RetryCallState

AGAIN = 0.2  # seconds between asks while a gap stays open
AWAY = 1.0  # seconds after the owner did not answer


def _wait(rs: RetryCallState) -> float:
    return AWAY if rs.outcome is not None and rs.outcome.failed else AGAIN


async def fill(missing: Callable[[], bool], fetch: Callable[[], Awaitable[None]],
               away: type[Exception],
               on_away: Callable[[BaseException], None] | None = None) -> None:
    """Call ``fetch`` until ``missing()`` says nothing is; ``fetch`` hands over what it
    read itself. ``away`` is what the owner raises when it does not answer (told to
    ``on_away``, then asked again); one still raised when the gap has closed meanwhile
    is dropped."""

    def again(rs: RetryCallState) -> bool:
        assert rs.outcome is not None
        error = rs.outcome.exception()
        if isinstance(error, away) and on_away is not None:
            on_away(error)
        return missing() and (isinstance(error, away) or not rs.outcome.failed)

    try:
        async for attempt in AsyncRetrying(retry=again, wait=_wait, reraise=True):
            with attempt:
                await fetch()
    except away:
        if missing():
            raise
