"""A small typed client of the public API (docs/protocol.md): sign in, open or join a
table, and play a game over ``/v1/ws`` with resume and retries.

It speaks only the documented protocol with the contract's own types (``schemas``),
so the end-to-end tests and the load bench that use it keep it honest: when it
stops working, the protocol changed.

    lobby = Lobby("http://127.0.0.1:8000")
    await lobby.guest("Ada")
    table = await lobby.create_table("quick", private=True)
    ...
    game = GameConnection(lobby.ws_url, lobby.token, table.game_id)
    await game.open()
    while game.ended is None:
        move = my_strategy(game)          # e.g. Move.bid(3) or Move.play("AS")
        if move and not game.pending:
            await game.send(move)
        await game.next()
"""

from spades_client.errors import RETRY_CODES, ApiFailure, CommandRejected
from spades_client.game import GameConnection
from spades_client.lobby import Lobby
from spades_client.moves import Move, first_legal

__all__ = ["RETRY_CODES", "ApiFailure", "CommandRejected", "GameConnection", "Lobby", "Move",
           "first_legal"]
