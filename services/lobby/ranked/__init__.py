"""The ranked queue: tickets and pairs (``queue``), their tables (``store``), the pure
matcher (``matching``) and its one leased leader (``matchmaker``).

The service builds the queue and hands it to the matchmaker, the gateway (which only
routes frames and closed sockets to it) and the HTTP routes (``queue_api``); nothing
else of the lobby imports this room, except the game-ended projection
(``operators.py``) that records a ranked game's leavers.
"""
