"""The HTTP side of the public API: signing in and people's tables."""

from __future__ import annotations

from typing import Any

import httpx
import msgspec

from schemas.api import GameSummary, Session, Table, TableList
from spades_client.errors import ApiFailure


class Lobby:
    """The HTTP side: sign-in and tables. Keeps the session's token once signed in."""

    def __init__(self, base_url: str, *, http: httpx.AsyncClient | None = None,
                 timeout: float = 30.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.http = http or httpx.AsyncClient(base_url=self.base_url, timeout=timeout)
        self.session: Session | None = None

    @property
    def token(self) -> str:
        if self.session is None:
            raise RuntimeError("sign in first")
        return self.session.token

    @property
    def ws_url(self) -> str:
        return "ws" + self.base_url.removeprefix("http") + "/v1/ws"

    async def _call(self, method: str, path: str, body: Any, answer: type[Any]) -> Any:
        headers = {"authorization": f"Bearer {self.session.token}"} if self.session else {}
        r = await self.http.request(method, path, json=body, headers=headers)
        if r.status_code >= 400:
            try:
                err = r.json()
                code, message = str(err["code"]), str(err["message"])
            except (ValueError, KeyError, TypeError):
                code, message = "http_error", r.text
            raise ApiFailure(r.status_code, code, message)
        return msgspec.json.decode(r.content, type=answer)

    async def _sign_in(self, path: str, body: dict[str, str]) -> Session:
        self.session = None
        self.session = await self._call("POST", path, body, Session)
        return self.session

    async def guest(self, name: str) -> Session:
        return await self._sign_in("/v1/auth/guest", {"name": name})

    async def register(self, name: str, password: str) -> Session:
        return await self._sign_in("/v1/auth/register", {"name": name, "password": password})

    async def login(self, name: str, password: str) -> Session:
        return await self._sign_in("/v1/auth/login", {"name": name, "password": password})

    async def tables(self) -> TableList:
        return await self._call("GET", "/v1/tables", None, TableList)

    async def table(self, table_id: str) -> Table:
        return await self._call("GET", f"/v1/tables/{table_id}", None, Table)

    async def create_table(self, rules: str | dict[str, Any] = "house", *,
                           private: bool = False, seat: int | None = 0,
                           banter: bool = True) -> Table:
        return await self._call("POST", "/v1/tables", {
            "rules": rules, "private": private, "seat": seat, "banter": banter}, Table)

    async def join(self, table_id: str, seat: int | None = None) -> Table:
        return await self._call("POST", f"/v1/tables/{table_id}/join", {"seat": seat}, Table)

    async def join_by_code(self, code: str, seat: int | None = None) -> Table:
        return await self._call("POST", "/v1/tables/join", {"code": code, "seat": seat}, Table)

    async def set_bots(self, table_id: str, level: str = "basic",
                       seat: int | None = None) -> Table:
        return await self._call("POST", f"/v1/tables/{table_id}/bots",
                                {"level": level, "seat": seat}, Table)

    async def start(self, table_id: str) -> Table:
        return await self._call("POST", f"/v1/tables/{table_id}/start", None, Table)

    async def play_again(self, table_id: str) -> Table:
        """Ask for another game at a table whose game ended, or agree to one asked for."""
        return await self._call("POST", f"/v1/tables/{table_id}/again", None, Table)

    async def watch_by_code(self, code: str) -> Table:
        """A private table's game by its room code: follow its ``game_id`` with
        ``GameConnection(..., spectate=True, code=code)``."""
        return await self._call("POST", "/v1/tables/watch", {"code": code}, Table)

    async def game(self, game_id: str, code: str | None = None) -> GameSummary:
        query = f"?code={code}" if code else ""
        return await self._call("GET", f"/v1/games/{game_id}{query}", None, GameSummary)

    async def aclose(self) -> None:
        await self.http.aclose()
