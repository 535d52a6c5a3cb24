"""The one way a game starts (``matches``): a person's table, the ranked queue and
tournaments all open a match, idempotent by its id, with an optional ready check; the
sweeps finish what a crash left (``sweeps``). Owns the ``matches`` table (``store``).
"""
