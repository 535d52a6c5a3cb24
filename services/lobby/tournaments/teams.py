"""A player's side of a tournament, over ``svc.tournaments.*``: registering a team with
a partner (named or by id), confirming, withdrawing, checking in. The lobby adds what
only it knows: that both are registered accounts, not guests, and the team's seeding
rating (the mean of the two players' ratings, from the ratings service); the partner
is invited by a note."""

from __future__ import annotations

import uuid

from schemas.notes import TournamentInvite
from schemas.tournaments import api as api
from schemas.tournaments import commands as cmd
from services.lobby.accounts import store
from services.lobby.accounts.auth import Claims
from services.lobby.accounts.names import skeleton
from services.lobby.base.errors import LobbyError
from services.lobby.clients.broadcasts import Broadcasts
from services.lobby.clients.ratings import RatingsBus
from services.lobby.clients.tournaments import TournamentBus
from services.lobby.tournaments.organizing import changed


def _registered_only(me: Claims) -> None:
    if me.guest:
        raise LobbyError("registered_only", "tournament teams are registered players; "
                                            "register a name first")


class Teams:
    """The teams players register, and what each player does with theirs."""

    def __init__(self, pool: store.Pool, bus: TournamentBus, ratings: RatingsBus,
                 broadcasts: Broadcasts) -> None:
        self.pool, self.bus, self.ratings, self.broadcasts = pool, bus, ratings, broadcasts

    async def _partner(self, me: Claims, body: api.RegisterTeamBody) -> str:
        """The partner's id, from the id or the name the body gives (one of them)."""
        if (body.partner is None) == (body.partner_name is None):
            raise LobbyError("bad_request", "name the partner by `partner_name` or by "
                                            "`partner` (an id), one of the two")
        if body.partner_name is not None:
            found = await store.registered_account(self.pool, skeleton(body.partner_name))
            if found is None:
                raise LobbyError("player_not_found",
                                 f"no registered player is named {body.partner_name!r}")
            partner = found[0]
        else:
            assert body.partner is not None
            partner = body.partner
        if partner == me.player_id:
            raise LobbyError("self_partner", "a team is two different players")
        return partner

    async def register(self, me: Claims, tid: str,
                       body: api.RegisterTeamBody) -> api.TournamentChanged:
        _registered_only(me)
        partner = await self._partner(me, body)
        known = await store.people(self.pool, [me.player_id, partner])
        if partner not in known:
            raise LobbyError("player_not_found", f"no player {partner}")
        if not known[partner][1]:
            raise LobbyError("partner_is_guest", "the partner must be a registered player")
        rated = await self.ratings.ratings([me.player_id, partner])
        team_id = uuid.uuid4().hex[:16]
        done = changed(await self.bus.write("register", tid, cmd.RegisterTeam(
            team_id=team_id, name=body.name, player=me.player_id, partner=partner,
            rating=sum(r.rating for r in rated) / len(rated))), team_id)
        if done.events:  # a repeat changed nothing and invites nobody again
            view = await self.bus.get(tid)
            await self.broadcasts.note(partner, TournamentInvite(
                tournament_id=tid, tournament=view.summary.name, team_id=team_id,
                team=body.name, player_id=me.player_id, name=known[me.player_id][0]))
        return done

    async def confirm(self, me: Claims, tid: str, team_id: str) -> api.TournamentChanged:
        return changed(await self.bus.write("confirm", tid, cmd.ConfirmTeam(
            team_id=team_id, player=me.player_id)))

    async def withdraw(self, me: Claims, tid: str, team_id: str) -> api.TournamentChanged:
        return changed(await self.bus.write("withdraw", tid, cmd.WithdrawTeam(
            team_id=team_id, player=me.player_id)))

    async def check_in(self, me: Claims, tid: str) -> api.TournamentChanged:
        return changed(await self.bus.write("check_in", tid, cmd.CheckIn(
            player=me.player_id)))
