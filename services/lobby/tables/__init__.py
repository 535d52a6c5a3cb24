"""People's tables: rules, seats, room codes, bots, watching and playing again
(``tables``, ``seating``, ``playagain``, ``watching``). Owns the ``game_tables`` rows
(``store``); a table starts its game through the ``matches`` room above, which it knows
only as the ``MatchStarter`` it is handed.
"""
