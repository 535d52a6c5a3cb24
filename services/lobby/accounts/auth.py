"""Sign-in: guests and registered accounts, and the signed tokens that prove who calls.

Tokens are JWTs signed with HS256 and verified with that algorithm only (a
token cannot choose its own algorithm, "none" included); they carry an expiry
that every check enforces. Nothing about a token is stored: any gateway that
shares the secret can check it, which is what lets several gateways run side
by side. Passwords are kept as argon2id hashes (memory-hard), never in clear.
A token carries the account's role (``player``, ``organizer`` or ``operator``) so a
player's request to an operator or organizer route is refused without a database read;
a role's privilege is never taken from the token alone (``role_now``).
"""

from __future__ import annotations

import asyncio
import time
import uuid
from dataclasses import dataclass

import argon2
import jwt

from schemas.api import Session
from services.lobby.accounts import names, store
from services.lobby.base.errors import LobbyError
from services.lobby.base.throttle import Throttle

ALGORITHM = "HS256"
PLAYER, OPERATOR, ORGANIZER = "player", "operator", "organizer"
MAY_ORGANIZE = frozenset({ORGANIZER, OPERATOR})
_hasher = argon2.PasswordHasher()


@dataclass(frozen=True)
class Claims:
    player_id: str
    name: str
    guest: bool
    expires_at: int
    role: str = PLAYER


class Tokens:
    def __init__(self, secret: str, ttl_seconds: int) -> None:
        self._secret, self.ttl = secret, ttl_seconds

    def issue(self, player_id: str, name: str, guest: bool, role: str = PLAYER) -> Session:
        now = int(time.time())
        exp = now + self.ttl
        token = jwt.encode({"sub": player_id, "name": name, "guest": guest, "role": role,
                            "iat": now, "exp": exp}, self._secret, algorithm=ALGORITHM)
        return Session(token=token, player_id=player_id, name=name, expires_at=exp, role=role,
                       guest=guest)

    def check(self, token: str | None) -> Claims:
        """The caller's claims, or ``LobbyError`` (401) for a missing, forged or expired token."""
        if not token:
            raise LobbyError("unauthenticated", "a bearer token is required")
        try:
            data = jwt.decode(token, self._secret, algorithms=[ALGORITHM],
                              options={"require": ["sub", "exp", "iat"]})
        except jwt.ExpiredSignatureError:
            raise LobbyError("token_expired", "the token has expired; sign in again"
                             ) from None
        except jwt.PyJWTError:
            raise LobbyError("bad_token", "the token is not valid") from None
        return Claims(str(data["sub"]), str(data.get("name", "")), bool(data.get("guest")),
                      int(data["exp"]), str(data.get("role", PLAYER)))

    def from_header(self, authorization: str | None) -> Claims:
        if not authorization or not authorization.lower().startswith("bearer "):
            raise LobbyError("unauthenticated", "send Authorization: Bearer <token>")
        return self.check(authorization[7:].strip())


MIN_NAME = 2  # letters or digits: one letter is an initial, not a name others can tell apart


def _name(name: str) -> tuple[str, str]:
    """The name as shown and its skeleton (``names``); 400 ``name_too_short`` when it has
    fewer than ``MIN_NAME`` letters or digits."""
    name = names.shown(name)
    if sum(ch.isalnum() for ch in name) < MIN_NAME:
        raise LobbyError("name_too_short",
                         f"a name has at least {MIN_NAME} letters or digits")
    return name, names.skeleton(name)


async def guest(pool: store.Pool, tokens: Tokens, name: str) -> Session:
    return await _account(pool, tokens, name, None)


async def register(pool: store.Pool, tokens: Tokens, name: str, password: str) -> Session:
    return await _account(pool, tokens, name, password)


async def _account(pool: store.Pool, tokens: Tokens, name: str,
                   password: str | None) -> Session:
    """A new account signed in: a guest's (no password) or a registered one's. The name
    is checked before the password is hashed: a refused name costs no hashing."""
    name, skeleton = _name(name)
    # Hashing is deliberately slow; keep it off the event loop.
    hashed = None if password is None else await asyncio.to_thread(_hasher.hash, password)
    player_id = str(uuid.uuid4())
    try:
        await store.create_account(pool, player_id, name, skeleton, hashed)
    except store.NameTaken:
        raise LobbyError("name_taken", f"{name!r} is (or looks like) a registered name"
                         ) from None
    return tokens.issue(player_id, name, guest=hashed is None)


async def login(pool: store.Pool, tokens: Tokens, throttle: Throttle, name: str,
                password: str, address: str) -> Session:
    account = names.skeleton(name)
    throttle.before_login(account, address)
    found = await store.registered_account(pool, account)
    wrong = LobbyError("bad_credentials", "unknown name or wrong password")
    if found is None:
        throttle.login_failed(account, address)
        raise wrong
    player_id, real_name, hashed, role = found
    try:
        await asyncio.to_thread(_hasher.verify, hashed, password)
    except argon2.exceptions.VerificationError:
        throttle.login_failed(account, address)
        raise wrong from None
    return tokens.issue(player_id, real_name, guest=False, role=role)


_RANK = {PLAYER: 0, ORGANIZER: 1, OPERATOR: 2}


async def role_now(pool: store.Pool, me: Claims) -> str:
    """The role ``me`` holds at this moment: the lesser of the token's and the
    account's as it is now. Every privilege of a role asks this when it is used, so a
    revoke ends it at once, not when the token expires; a token that says ``player``
    (a guest's, or one from before a grant) costs no database read."""
    if me.guest or me.role not in (ORGANIZER, OPERATOR):
        return PLAYER
    held = await store.account_role(pool, me.player_id) or PLAYER
    return min(me.role, held, key=lambda r: _RANK.get(r, 0))


async def require_operator(pool: store.Pool, me: Claims) -> Claims:
    """The caller, if an operator now (``role_now``)."""
    if await role_now(pool, me) != OPERATOR:
        raise LobbyError("operators_only", "this needs an operator account")
    return me


async def require_organizer(pool: store.Pool, me: Claims) -> Claims:
    """The caller, if it may organize tournaments now (an organizer or an operator)."""
    if await role_now(pool, me) not in MAY_ORGANIZE:
        raise LobbyError("organizers_only", "this needs an organizer account "
                                            "(spades organizer grant NAME)")
    return me


async def set_role(pool: store.Pool, name: str, role: str,
                   only_from: tuple[str, ...] | None = None) -> str:
    """Give a registered name ``role`` (guests hold none); the role it held before. With
    ``only_from``, an account holding another role keeps it (the role held is returned)."""
    held = await store.set_role(pool, name, role, only_from)
    if held is None:
        raise LobbyError("account_not_found", f"no registered account named {name!r}")
    return held
