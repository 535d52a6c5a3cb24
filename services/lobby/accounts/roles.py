"""`spades operator|organizer grant|revoke NAME`: give a registered account a role.

A command, not an HTTP route: the first operator has to come from somewhere,
and whoever can run commands against the lobby's database is trusted already.
The account signs in again to get a token that carries the role. Operators may
organize already, so making an operator an organizer, or revoking the organizer
role of an operator, leaves the operator as it is.
"""

from __future__ import annotations

from services.lobby.accounts import auth
from services.platform.db import create_pool


async def set_role(database_url: str, name: str, grant: bool) -> str:
    pool = await create_pool(database_url, "lobby", max_size=1)
    try:
        await auth.set_role(pool, name, auth.OPERATOR if grant else auth.PLAYER)
    finally:
        await pool.close()
    return (f"{name} is an operator; sign in again to use it" if grant
            else f"{name} is no longer an operator")


async def set_organizer(database_url: str, name: str, grant: bool) -> str:
    pool = await create_pool(database_url, "lobby", max_size=1)
    try:
        held = await auth.set_role(
            pool, name, auth.ORGANIZER if grant else auth.PLAYER,
            only_from=(auth.PLAYER, auth.ORGANIZER) if grant else (auth.ORGANIZER,))
    finally:
        await pool.close()
    if held == auth.OPERATOR:
        return f"{name} is an operator, who may organize already; nothing changed"
    if grant:
        return f"{name} is an organizer; sign in again to use it"
    return (f"{name} is no longer an organizer" if held == auth.ORGANIZER
            else f"{name} was not an organizer; nothing changed")
