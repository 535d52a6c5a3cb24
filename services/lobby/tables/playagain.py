"""Playing again at the same table, with the same seats: the pure decisions.

When a table's game ends, any person seated there may ask for another. The table
opens again (the finished game stays found through its match, see the matches
room's ``table_of_game``) and the other people seated are asked with a
``play_again_asked`` note; each agrees by asking too, or leaves. Bots always
agree. A person who leaves after a game gives the seat up the way the rules treat
a leaver: a bot takes it (``abandon: bot``), or it is free for someone new
(``abandon: forfeit``), who agrees by sitting down. Once every seat is filled and
agreed, the game starts through the same start path as the first; the host may
start sooner, and then a seat whose person has not agreed goes to a bot.
"""

from __future__ import annotations

from services.lobby.base.errors import LobbyError
from services.lobby.tables import store


def seat_of(t: store.TableRow, player_id: str) -> int | None:
    return next((i for i, s in enumerate(t.seats) if s.player_id == player_id), None)


def given_up(t: store.TableRow, seat: int) -> store.Seat:
    """What a seat becomes when its person leaves after a game: as the rules say."""
    if t.rules.get("abandon", "bot") == "bot":
        return store.Seat(bot="basic", name=f"Bot {seat + 1}")
    return store.Seat()


def ask(t: store.TableRow, player_id: str) -> store.TableRow:
    """``player_id`` wants another game: the first ask opens the table again."""
    held = seat_of(t, player_id)
    if held is None:
        raise LobbyError("not_seated", "you hold no seat at this table")
    if t.private and t.code is None:
        raise LobbyError("match_table", "a ranked or tournament match is played once: "
                                        "queue again, or wait for the next round")
    if t.state == "playing":
        raise LobbyError("game_running", "the table's game is still being played")
    if t.state == "open":
        if t.play_again is None:
            raise LobbyError("no_game_yet",
                             "this table has not played a game yet; start it")
        if player_id in t.play_again:
            return t
        return t.with_(play_again=(*t.play_again, player_id))
    return t.with_(state="open", game_id=None, play_again=(player_id,))


def agreed(t: store.TableRow) -> list[bool] | None:
    """Per seat, whether it plays the next game (None: nobody asked for one, or it began).

    The agreement outlives the start until the game ends, so a start that failed (no
    game worker answered) leaves the table open with everyone's agreement kept."""
    if t.play_again is None or t.state != "open":
        return None
    return [s.bot is not None or (s.player_id is not None and s.player_id in t.play_again)
            for s in t.seats]


def everyone_agreed(t: store.TableRow) -> bool:
    """Every seat filled, and every person in one agreed: the next game can begin."""
    flags = agreed(t)
    return t.state == "open" and flags is not None and all(flags)


def sat_down(before: store.TableRow, after: store.TableRow, player_id: str) -> store.TableRow:
    """Sitting down at a table that asked for another game is agreeing to it."""
    if after.play_again is None or player_id in after.play_again \
            or seat_of(before, player_id) is not None:
        return after
    return after.with_(play_again=(*after.play_again, player_id))


def stood_up(t: store.TableRow, seat: int, player_id: str) -> store.TableRow:
    """``player_id`` leaves ``seat`` between games: the seat is given up."""
    seats = list(t.seats)
    seats[seat] = given_up(t, seat)
    again = t.play_again if t.play_again is None else \
        tuple(p for p in t.play_again if p != player_id)
    return t.with_(seats=tuple(seats), play_again=again)


def playing_on(t: store.TableRow) -> tuple[store.Seat, ...]:
    """The seats the next game starts with: those who did not agree are played by bots."""
    flags = agreed(t)
    if flags is None:
        return t.seats
    return tuple(s if ok or s.player_id is None else store.Seat(bot="basic", name=f"Bot {i + 1}")
                 for i, (s, ok) in enumerate(zip(t.seats, flags, strict=True)))
