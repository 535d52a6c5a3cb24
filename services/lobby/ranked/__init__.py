"""The ranked queue: tickets and pairs (``queue``), their tables (``store``), the pure
matcher (``matching``), its one leased leader (``matchmaker``), and the cooldown a rated
game's leavers get (``leavers``).

The service builds the queue and hands it to the matchmaker, the gateway (which only
routes frames and closed sockets to it) and the HTTP routes; of the lobby's top level
only the service imports this room.
"""
