"""An organizer's actions on a tournament, over ``svc.tournaments.*``: the caller's token
becomes the command's author, and the lobby checks the role it alone knows (an
organizer, or an operator) against the account as it is now, on every request."""

from __future__ import annotations

import uuid

import msgspec

from schemas.rules import Rules
from schemas.tournaments import api as api
from schemas.tournaments import commands as cmd
from schemas.tournaments.events import TournamentSettings
from services.lobby.accounts import auth, store
from services.lobby.accounts.auth import Claims
from services.lobby.base.errors import LobbyError
from services.lobby.base.rulesets import rules_of
from services.lobby.clients.tournaments import TournamentBus


def changed(reply: api.CommandReply, team_id: str | None = None) -> api.TournamentChanged:
    """A command's reply as the caller gets it."""
    return api.TournamentChanged(tournament_id=reply.tournament_id, version=reply.version,
                                 events=reply.events, team_id=team_id)


def settings_of(body: api.TournamentBody) -> TournamentSettings:
    """The settings a body asks for, its rules checked as a private table's are."""
    _, rules = rules_of(body.rules)
    terms = msgspec.structs.asdict(body)
    del terms["rules"]
    return TournamentSettings(**terms, rules=msgspec.convert(rules, Rules))


class Organizing:
    """Creating a tournament and every organizer's action on one."""

    def __init__(self, pool: store.Pool, bus: TournamentBus) -> None:
        self.pool, self.bus = pool, bus

    async def create(self, me: Claims, body: api.TournamentBody) -> api.TournamentChanged:
        await auth.require_organizer(self.pool, me)
        tid = str(uuid.uuid4())
        return changed(await self.bus.write("create", tid, cmd.CreateTournament(
            tournament_id=tid, organizer=me.player_id, settings=settings_of(body))))

    async def _organizing(self, me: Claims, tid: str) -> None:
        """Before an organizer's action on ``tid``: the role, checked on every request
        against the account as it is now, so a revoked organizer is refused at once on
        their own tournaments (403 ``organizers_only``). A caller who is not the
        tournament's organizer goes on to the service, which answers ``not_organizer``
        as it always has."""
        try:
            await auth.require_organizer(self.pool, me)
        except LobbyError:
            if (await self.bus.get(tid)).summary.organizer == me.player_id:
                raise

    async def change(self, me: Claims, tid: str,
                     body: api.TournamentBody) -> api.TournamentChanged:
        await self._organizing(me, tid)
        return changed(await self.bus.write("patch", tid, cmd.ChangeSettings(
            by=me.player_id, settings=settings_of(body))))

    async def cancel(self, me: Claims, tid: str) -> api.TournamentChanged:
        await self._organizing(me, tid)
        return changed(await self.bus.write("cancel", tid, cmd.Cancel(by=me.player_id)))

    async def start_now(self, me: Claims, tid: str) -> api.TournamentChanged:
        await self._organizing(me, tid)
        return changed(await self.bus.write("start_now", tid, cmd.StartNow(by=me.player_id)))

    async def override(self, me: Claims, tid: str, match_id: str,
                       body: api.OverrideBody) -> api.TournamentChanged:
        await self._organizing(me, tid)
        return changed(await self.bus.write("override", tid, cmd.OverrideResult(
            match_id=match_id, outcome=body.outcome, by=me.player_id, why=body.why,
            scores=body.scores)))

    async def disqualify(self, me: Claims, tid: str, team_id: str,
                         body: api.DisqualifyBody) -> api.TournamentChanged:
        await self._organizing(me, tid)
        return changed(await self.bus.write("disqualify", tid, cmd.Disqualify(
            team_id=team_id, by=me.player_id, why=body.why)))

    async def add_bots(self, me: Claims, tid: str,
                       body: api.BotTeamBody) -> api.TournamentChanged:
        await self._organizing(me, tid)
        team_id = uuid.uuid4().hex[:16]
        return changed(await self.bus.write("add_bots", tid, cmd.AddBotTeam(
            team_id=team_id, name=body.name, by=me.player_id, level=body.level)), team_id)

    async def seed(self, me: Claims, tid: str, body: api.SeedsBody) -> api.TournamentChanged:
        await self._organizing(me, tid)
        return changed(await self.bus.write("seed", tid, cmd.SetSeeds(
            by=me.player_id, order=body.order)))

    async def set_pairings(self, me: Claims, tid: str, round_no: int,
                           body: api.PairingsBody) -> api.TournamentChanged:
        await self._organizing(me, tid)
        return changed(await self.bus.write("set_pairings", tid, cmd.SetPairings(
            by=me.player_id, round_no=round_no, pairs=body.pairs, bye=body.bye)))

    async def waive_ban(self, me: Claims, tid: str,
                        body: api.WaiveBanBody) -> api.TournamentChanged:
        await self._organizing(me, tid)
        return changed(await self.bus.write("waive_ban", tid, cmd.WaiveBan(
            player=body.player, by=me.player_id)))
