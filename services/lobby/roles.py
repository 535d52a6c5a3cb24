"""`spades operator grant|revoke NAME`: give a registered account the operator role.

A command, not an HTTP route: the first operator has to come from somewhere,
and whoever can run commands against the lobby's database is trusted already.
The account signs in again to get a token that carries the role.
"""

from __future__ import annotations

from services.lobby import auth
from services.platform.db import create_pool


async def set_role(database_url: str, name: str, grant: bool) -> str:
    pool = await create_pool(database_url, "lobby", max_size=1)
    try:
        await auth.set_role(pool, name, auth.OPERATOR if grant else auth.PLAYER)
    finally:
        await pool.close()
    return (f"{name} is an operator; sign in again to use it" if grant
            else f"{name} is no longer an operator")
