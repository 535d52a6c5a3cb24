"""The lobby's typed clients of other services: the game workers (``games``), its own
publications and what it listens to (``broadcasts``), ratings and tournaments.

It imports only ``schemas``, the platform and the ``base`` room (the lobby's error
type), so every room above may lean on it.
"""
