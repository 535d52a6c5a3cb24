"""The lobby's typed clients of other services: the game workers (``games``), its own
publications and what it listens to (``broadcasts``), ratings and tournaments.

The lowest room of the lobby: it imports only ``schemas``, the platform and the
lobby's one error type (``errors.py``), so every other room may lean on it.
"""
