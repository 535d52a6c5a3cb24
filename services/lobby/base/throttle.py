"""Rate limits on signing in: failed logins per account and per client address, and
new accounts (guests or registered) per client address.

Without them a password can be guessed at full speed and a script can fill the
accounts table. Failed logins count against both the name tried and the caller's
address: the first stops a slow guess at one account from many addresses, the
second one address trying many accounts. A limit reached answers ``429
rate_limited`` with ``Retry-After``, before the password is even checked.

Counts are kept in memory by ``limits`` (moving windows), per lobby copy: with N
copies behind a balancer a caller gets up to N times the limit, which still
bounds guessing; the documented defaults assume that.
"""

from __future__ import annotations

import math
import time

from limits import RateLimitItem, parse
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter

from services.lobby.base.errors import LobbyError


def limit(text: str) -> RateLimitItem:
    """A limit such as ``10/15 minutes``; ValueError for anything else."""
    return parse(text)


def refuse_past(limiter: MovingWindowRateLimiter, item: RateLimitItem, keys: tuple[str, ...],
                what: str) -> None:
    """429 ``rate_limited`` with the wait, once ``keys`` used up ``item``."""
    if not limiter.test(item, *keys):
        reset = limiter.get_window_stats(item, *keys).reset_time
        wait = max(1, math.ceil(reset - time.time()))
        raise LobbyError("rate_limited", f"too many {what}; try again in {wait} s",
                         retry_after=wait)


class Throttle:
    def __init__(self, failures_per_account: str, failures_per_address: str,
                 signups_per_address: str) -> None:
        self.per_account = limit(failures_per_account)
        self.per_address = limit(failures_per_address)
        self.signups = limit(signups_per_address)
        self._limiter = MovingWindowRateLimiter(MemoryStorage())

    def _check(self, item: RateLimitItem, *keys: str) -> None:
        refuse_past(self._limiter, item, keys, "attempts")

    def before_login(self, account: str, address: str) -> None:
        """Refuse a login while the account or the address has used up its failures."""
        self._check(self.per_account, "login-account", account)
        self._check(self.per_address, "login-address", address)

    def login_failed(self, account: str, address: str) -> None:
        self._limiter.hit(self.per_account, "login-account", account)
        self._limiter.hit(self.per_address, "login-address", address)

    def sign_up(self, address: str) -> None:
        """Count one new account from ``address``, or refuse it past the limit."""
        self._check(self.signups, "signup", address)
        self._limiter.hit(self.signups, "signup", address)


class CodeGuesses:
    """Wrong room codes per player: a private table is found (to join or to watch) by its
    code alone, so a script must not try codes at full speed. A guest is cheap, but
    new accounts per address are limited too, which bounds guessing from one place."""

    def __init__(self, misses_per_player: str) -> None:
        self.misses = limit(misses_per_player)
        self._limiter = MovingWindowRateLimiter(MemoryStorage())

    def check(self, player_id: str) -> None:
        """Refuse (429 ``rate_limited``) a player who has used up its wrong codes."""
        refuse_past(self._limiter, self.misses, ("code-miss", player_id), "wrong room codes")

    def missed(self, player_id: str) -> None:
        self._limiter.hit(self.misses, "code-miss", player_id)


__all__ = ["CodeGuesses", "Throttle", "limit"]
