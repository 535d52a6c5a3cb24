"""A repeated command id gets the first answer (docs/architecture.md, rule 8), for as
long as a game's task remembers it.

Accepted commands and refusals by the rules are remembered with the hash of
the command they answered: the same id sent again for the same command gets
the first answer marked ``duplicate``; for another command, ``command_id_reused``.
Platform answers (``busy``, ``not_owner``, ``conflict``, ``unavailable``)
applied nothing and are not remembered: those are the ones to retry.
"""

from __future__ import annotations

import collections
import hashlib

import msgspec
from msgspec.structs import replace

from engine.errors import RuleError
from schemas import commands as cmd
from schemas.errors.codes import COMMAND_ID_REUSED, RETRYABLE
from schemas.gamebus import GameReply
from services.game.shards import Games
from services.game.store import Refusal

_hash_encoder = msgspec.msgpack.Encoder(order="deterministic")


def command_hash(player_id: str, command: cmd.Command) -> str:
    """What a command id stands for: who sent which command (its time left out, as the
    worker sets that itself)."""
    body = _hash_encoder.encode((player_id, replace(command, at=0)))
    return hashlib.blake2b(body, digest_size=16).hexdigest()


def reused(command_id: str) -> GameReply:
    return GameReply(ok=False, code=COMMAND_ID_REUSED, message=(
        f"command id {command_id!r} was already used for another command; "
        "send a new id for a new command"))


def outcome(reply: GameReply) -> str:
    """The reply's outcome, as the metrics count it."""
    if reply.duplicate:
        return "duplicate"
    if reply.ok:
        return "ok"
    return reply.code if reply.code in RETRYABLE else "refused"


class Answers:
    """The first answers of one game's commands, by command id: the latest ``kept``
    in memory, and every refusal by the rules (stored, and loaded on adoption)."""

    def __init__(self, store: Games, game_id: str, refused: dict[str, Refusal],
                 kept: int) -> None:
        self.store, self.game_id = store, game_id
        self.refused = refused
        self.kept = kept
        # command id -> (its command's hash, the first answer)
        self.answers: collections.OrderedDict[str, tuple[str, GameReply]] = \
            collections.OrderedDict()

    def earlier(self, command_id: str, digest: str) -> GameReply | None:
        """The answer to a repeat of ``command_id``, or None when it is new here."""
        first = self.answers.get(command_id)
        if first is not None:
            return reused(command_id) if first[0] != digest else replace(first[1],
                                                                         duplicate=True)
        refused = self.refused.get(command_id)
        if refused is not None:
            if refused.command_hash not in (None, digest):
                return reused(command_id)
            return GameReply(ok=False, code=refused.code, message=refused.message,
                             duplicate=True)
        return None

    def remember(self, command_id: str, digest: str, reply: GameReply) -> None:
        if reply.ok or reply.code not in RETRYABLE | {COMMAND_ID_REUSED}:
            self.answers[command_id] = digest, reply
            if len(self.answers) > self.kept:
                self.answers.popitem(last=False)

    async def refuse(self, command_id: str, exc: RuleError, epoch: int,
                     digest: str | None) -> GameReply:
        """The answer to a command the rules refuse: the first answer if the command id
        was accepted before this worker had the game; else the refusal, stored under
        ``epoch`` (``FencedError`` when another worker owns the game now) so that a
        repeat gets it too, even once a move refused then would be legal."""
        first = await self.store.command_result(self.game_id, command_id)
        if first is not None:  # accepted before this worker had the game
            if first.command_hash not in (None, digest):
                return reused(command_id)
            return GameReply(ok=True, version=first.last_version,
                             first_version=first.first_version, duplicate=True)
        refusal = await self.store.refuse(self.game_id, command_id, exc.code, exc.message,
                                          epoch, digest)
        self.refused[command_id] = refusal
        if refusal.command_hash not in (None, digest):  # refused before, for another
            return reused(command_id)
        return GameReply(ok=False, code=refusal.code, message=refusal.message)
