"""A followed game's events out to its sockets: each socket gets exactly the frame its
seat may see, however many seats share one encoded frame."""

from __future__ import annotations

import asyncio
import types

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.evolve import evolve
from engine.presets import PRESETS
from engine.state import GameState
from engine.views import redact, turn
from schemas import ws
from schemas.events import GameEvent
from schemas.gamebus import ChatLine
from services.lobby.accounts.auth import Claims
from services.lobby.base.settings import LobbySettings
from services.lobby.edge.connections import Conn, encode
from services.lobby.edge.following import Hub, Sub
from tests.engine.helpers import bot_game

SEATS: tuple[int | None, ...] = (0, 1, 2, 3, None)


def one_by_one(game_id: str, events: list, seat: int | None) -> list[str]:
    """The frames a seat is owed, each built for that seat alone."""
    out, state = [], GameState()
    for event in events:
        state = evolve(state, event)
        shown = redact(event, state, seat)
        if shown is not None:
            assert isinstance(shown, GameEvent)
            out.append(encode(ws.EventFrame(game_id=game_id, version=state.version,
                                            event=shown, turn=turn(state, seat),
                                            phase=state.phase)))
    return out


@settings(max_examples=12, deadline=None)
@given(preset=st.sampled_from(sorted(PRESETS)), seed=st.integers(0, 2**32))
async def test_every_socket_gets_the_frames_of_its_own_seat(preset: str, seed: int) -> None:
    events = bot_game(PRESETS[preset], seed)
    config = LobbySettings(database_url="", nats_url="", ws_outbox_frames=100_000)

    async def idle(hub: Hub) -> None:
        return None

    host = types.SimpleNamespace(settings=config)
    hub = Hub(host, "g1", None, idle)
    conns = {seat: Conn(Claims(f"p{seat}", "p", False, 0), config) for seat in SEATS}
    for seat, conn in conns.items():
        hub.subs.add(Sub(conn, hub, seat))
    for version, event in enumerate(events, 1):
        hub.order.take(version, event)
    for seat, conn in conns.items():
        got = [conn.outbox.get_nowait() for _ in range(conn.outbox.qsize())]
        assert got == one_by_one("g1", events, seat), f"seat {seat}"


async def test_reach_wakes_when_the_version_arrives_and_gives_up_after_its_timeout() -> None:
    events = bot_game(PRESETS["house"], 7)
    config = LobbySettings(database_url="", nats_url="")

    async def idle(hub: Hub) -> None:
        return None

    hub = Hub(types.SimpleNamespace(settings=config), "g1", None, idle)
    loop = asyncio.get_running_loop()
    waiting = asyncio.create_task(hub.order.reach(2, timeout=30.0))
    hub.order.take(1, events[0])
    await asyncio.sleep(0)
    assert not waiting.done()  # version 1 is not yet version 2
    hub.order.take(2, events[1])
    for _ in range(3):  # woken by the event itself: no clock time has to pass
        await asyncio.sleep(0)
    assert waiting.done() and hub.state.version == 2
    began = loop.time()
    await hub.order.reach(3, timeout=0.05)  # never arrives: back after the timeout, no error
    assert 0.05 <= loop.time() - began < 1.0 and hub.state.version == 2


async def test_sockets_of_one_audience_share_one_encoded_frame_and_seats_never_leak() -> None:
    """Two sockets of one seat, and two spectators, get the very same text object per
    event (encoded once); a seat whose frame differs from another's never gets it."""
    events = bot_game(PRESETS["house"], 11)
    config = LobbySettings(database_url="", nats_url="", ws_outbox_frames=100_000)

    async def idle(hub: Hub) -> None:
        return None

    hub = Hub(types.SimpleNamespace(settings=config), "g1", None, idle)
    audiences: tuple[int | None, ...] = (0, 0, 1, 2, 3, None, None)
    conns = [Conn(Claims(f"p{i}", "p", False, 0), config) for i in range(len(audiences))]
    for conn, seat in zip(conns, audiences, strict=True):
        hub.subs.add(Sub(conn, hub, seat))
    shared = 0
    for version, event in enumerate(events, 1):
        hub.order.take(version, event)
        got = {i: conn.outbox.get_nowait() for i, conn in enumerate(conns)
               if not conn.outbox.empty()}
        assert all(conn.outbox.empty() for conn in conns)
        assert (0 in got) == (1 in got) and (5 in got) == (6 in got)
        if 0 in got:
            assert got[0] is got[1]
        if 5 in got:
            assert got[5] is got[6]
        owed = {i: one_by_one("g1", events[:version], audiences[i])[-1:] for i in got}
        for i, text in got.items():
            assert [text] == owed[i]
            for j, other in got.items():
                if owed[j] != owed[i]:
                    assert other != text  # a different view is never the same frame
                elif text is other and audiences[i] != audiences[j]:
                    shared += 1
    assert shared > 0  # seats with nothing of their own did share the spectator's frame


async def test_a_delayed_watcher_reads_table_talk_when_its_board_gets_there() -> None:
    """Live sockets get a chat line at once; a delayed watcher once its board shows the
    moment the line was said, and a bot's line not at all when it muted the bots."""
    events = bot_game(PRESETS["house"], 5)
    config = LobbySettings(database_url="", nats_url="", ws_outbox_frames=100_000,
                           watch_delay_tricks=2)

    async def idle(hub: Hub) -> None:
        return None

    host = types.SimpleNamespace(settings=config,
                                 bots_muted=lambda player_id, game_id: player_id == "mute")
    hub = Hub(host, "g1", None, idle)
    live, late, muted = (Conn(Claims(p, p, False, 0), config) for p in ("live", "late", "mute"))
    hub.subs.update({Sub(live, hub, 0), Sub(late, hub, None, delayed=True),
                     Sub(muted, hub, None, delayed=True)})

    def chat_in(conn: Conn) -> list[str]:
        frames = [conn.outbox.get_nowait() for _ in range(conn.outbox.qsize())]
        return [ws_text for f in frames if f and (ws_text := _chat_text(f))]

    said_at = 20
    for version, event in enumerate(events, 1):
        hub.order.take(version, event)
        if version == said_at:
            await hub._on_chat(ChatLine(game_id="g1", seat=0, player_id="live", text="gl"))
            await hub._on_chat(ChatLine(game_id="g1", seat=1, player_id="bot", text="hm",
                                        bot=True))
            assert chat_in(live) == ["gl", "hm"]
            assert chat_in(late) == [] and chat_in(muted) == []  # their board is behind
        elif hub.delay.shown.version < said_at:
            assert chat_in(late) == [] and chat_in(muted) == []
        else:
            assert chat_in(late) == ["gl", "hm"] and chat_in(muted) == ["gl"]
            break
    else:
        raise AssertionError("the delayed board never reached the lines")


def _chat_text(frame: str) -> str:
    message = msgspec.json.decode(frame)
    return message["text"] if message.get("type") == "chat" else ""
