"""Games after they start: the durable consumers of ``GameStarted`` and ``GameEnded``
(``projection``: the games projection, the table's close, a ranked game's leavers) and
the operators' log, replay, verdict and search (``operators``). Owns the ``games``
projection (``store``).
"""
