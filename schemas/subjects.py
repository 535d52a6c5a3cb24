"""Every NATS subject, JetStream stream and durable consumer name of the platform.

One module so that a publisher and its consumers can never disagree on a
name. ``Names(prefix)`` puts every name under a prefix: test runs and
side-by-side installs share one NATS without seeing each other.
"""

from __future__ import annotations

import re

from schemas.bounds import whole

# What an id must look like to become one subject token (a game, table or player id):
# nats-server cuts a client off whose control line is too long, and ``.``, ``*``, ``>``
# or white space would change which subjects a name means. Edges refuse other ids with
# a typed error; ``token`` refuses them here too, so no caller can build such a subject.
ID_PATTERN = whole(r"[A-Za-z0-9_-]{1,64}")
_ID = re.compile(ID_PATTERN)
# JetStream streams (transport only; Postgres is the source of truth).
GAME_EVENTS = "GAME_EVENTS"
TOURNAMENT_EVENTS = "TOURNAMENT_EVENTS"
LOBBY_MATCHES = "LOBBY_MATCHES"  # how each match's start ended (schemas.matches.MatchOutcome)
TOURNAMENT_STREAM_PREFIX = "tournament-"  # a tournament's event-store stream: tournament-<id>

# Durable consumers of GAME_EVENTS.
RATINGS_RESULTS = "ratings-results"
RATINGS_FAIRPLAY = "ratings-fairplay"  # every rated game weighed and its pairs judged
TOURNAMENTS_RESULTS = "tournaments-results"
TOURNAMENTS_MATCHES = "tournaments-matches"  # the tournaments' LOBBY_MATCHES consumer
LOBBY_GAMES_STARTED = "lobby-games-started"  # the lobby's games projection, for operators
LOBBY_GAMES_ENDED = "lobby-games-ended"
LOBBY_HISTORY = "lobby-history"  # each player's finished games, with their score sheets

# The event type whose arrival means a game is over, and the one that opens a game.
GAME_ENDED = "GameEnded"
GAME_STARTED = "GameStarted"


class Names:
    """Names under one prefix (empty in production)."""

    def __init__(self, prefix: str = "") -> None:
        if prefix and not prefix.replace("_", "").replace("-", "").isalnum():
            raise ValueError(f"subject prefix must be one alphanumeric token, not {prefix!r}")
        self.prefix = prefix

    def subject(self, name: str) -> str:
        return f"{self.prefix}.{name}" if self.prefix else name

    def stream(self, name: str) -> str:
        return f"{self.prefix}_{name}" if self.prefix else name

    @property
    def game_events_stream(self) -> str:
        return self.stream(GAME_EVENTS)

    @property
    def game_events_all(self) -> str:
        """Subjects the GAME_EVENTS stream captures."""
        return self.subject("game.evt.>")

    def game_event(self, game_id: str, event_type: str) -> str:
        """Subject of one event: consumers filter by game (token 3) or type (token 4)."""
        return self.subject(f"game.evt.{_token(game_id)}.{event_type}")

    def game_events_of_type(self, event_type: str) -> str:
        return self.subject(f"game.evt.*.{event_type}")

    @property
    def tournament_events_stream(self) -> str:
        return self.stream(TOURNAMENT_EVENTS)

    @property
    def tournament_events_all(self) -> str:
        """Subjects the TOURNAMENT_EVENTS stream captures."""
        return self.subject("tournament.evt.>")

    def tournament_event(self, stream: str, event_type: str) -> str:
        """Subject of one event of the store's stream ``tournament-<id>``:
        ``tournament.evt.<id>.<type>``."""
        tournament_id = stream.removeprefix(TOURNAMENT_STREAM_PREFIX)
        return self.subject(f"tournament.evt.{_token(tournament_id)}.{event_type}")

    @property
    def lobby_matches_stream(self) -> str:
        return self.stream(LOBBY_MATCHES)

    @property
    def lobby_matches_all(self) -> str:
        """Subjects the LOBBY_MATCHES stream captures."""
        return self.subject("lobby.match.>")

    def lobby_match(self, origin: str, match_id: str) -> str:
        """Subject of one match's outcome: a consumer filters by origin (token 3)."""
        return self.subject(f"lobby.match.{_token(origin)}.{_token(match_id)}")

    def lobby_matches_of(self, origin: str) -> str:
        return self.subject(f"lobby.match.{_token(origin)}.*")

    # Requests to the game workers (NATS request/reply, msgpack Structs of schemas.gamebus).

    def game_command(self, game_id: str) -> str:
        """``GameRequest`` -> ``GameReply`` for one game, answered by the game's owner."""
        return self.subject(f"game.cmd.{_token(game_id)}")

    @property
    def game_create(self) -> str:
        """``CreateGame`` -> ``GameReply``: start a game (services API endpoint of the
        game workers, any one of them)."""
        return self.endpoint("game", "create")

    @property
    def game_events_since(self) -> str:
        """``EventsSince`` -> ``EventsReply``: stored events of a game from the store
        (services API endpoint of the game workers, any one of them)."""
        return self.endpoint("game", "since")

    @property
    def game_handover(self) -> str:
        """A game worker let go of its games (shutting down): the others adopt them now
        instead of waiting for the leases to run out. The body is the leaving worker's id."""
        return self.subject("game.handover")

    # Plain NATS publications (not stored): table talk and gateway-to-gateway notes.

    def game_chat(self, game_id: str) -> str:
        """``ChatLine`` of a game, from a gateway (people) or a worker (bots)."""
        return self.subject(f"game.chat.{_token(game_id)}")

    @property
    def lobby_tables(self) -> str:
        """``TableChanged``: a table's seats, rules or state changed."""
        return self.subject("lobby.tables")

    @property
    def ranked_barred(self) -> str:
        """``BarsBegan``: an upheld fair-play case barred these accounts from ranked."""
        return self.subject("ranked.barred")

    def lobby_presence(self, game_id: str) -> str:
        """``SeatPresent``: a seated player is back on some gateway."""
        return self.subject(f"lobby.presence.{_token(game_id)}")

    def player_note(self, player_id: str) -> str:
        """A ``schemas.notes`` note to one player; every gateway forwards it to the
        player's sockets there."""
        return self.subject(f"player.note.{_token(player_id)}")

    @property
    def player_notes_all(self) -> str:
        return self.subject("player.note.*")

    def service_group(self, service: str) -> str:
        """Subject group under which a service's request/reply endpoints live."""
        return self.subject(f"svc.{service}")

    def endpoint(self, service: str, endpoint: str) -> str:
        return f"{self.service_group(service)}.{endpoint}"


class BadId(ValueError):
    """An id that cannot be a subject token (see ``ID_PATTERN``)."""


def _token(value: str) -> str:
    if not _ID.fullmatch(value):
        raise BadId(f"an id is 1 to 64 letters, digits, '-' or '_', not {value[:40]!r}")
    return value
