"""Tournaments as the lobby offers them: the caller's token becomes the command's author.

The tournament service decides (who organizes, who partners whom, what the
state allows); the lobby adds what only it knows: who is calling, whether an
account may organize (an organizer or an operator) or play in a team (a
registered account, not a guest), and the team's seeding rating (the mean of
the two players' ratings, from the ratings service).
"""

from __future__ import annotations

import uuid

import msgspec

from schemas.errors.codes import TOURNAMENTS_UNAVAILABLE
from schemas.history import TournamentRound
from schemas.matches import parse_lobby_match_id
from schemas.notes import TournamentInvite
from schemas.rules import Rules
from schemas.tournaments import api as api
from schemas.tournaments import commands as cmd
from schemas.tournaments.events import TournamentSettings
from services.lobby.accounts import auth, store
from services.lobby.accounts.auth import Claims
from services.lobby.accounts.names import skeleton
from services.lobby.base.errors import LobbyError
from services.lobby.base.rulesets import rules_of
from services.lobby.clients.broadcasts import Broadcasts
from services.lobby.clients.ratings import RatingsBus
from services.lobby.clients.tournaments import TournamentBus
from services.lobby.matches import store as match_store


def _changed(reply: api.CommandReply, team_id: str | None = None) -> api.TournamentChanged:
    return api.TournamentChanged(tournament_id=reply.tournament_id, version=reply.version,
                                 events=reply.events, team_id=team_id)


def settings_of(body: api.TournamentBody) -> TournamentSettings:
    """The settings a body asks for, its rules checked as a private table's are."""
    _, rules = rules_of(body.rules)
    terms = msgspec.structs.asdict(body)
    del terms["rules"]
    return TournamentSettings(**terms, rules=msgspec.convert(rules, Rules))


def _registered_only(me: Claims) -> None:
    if me.guest:
        raise LobbyError("registered_only", "tournament teams are registered players; "
                                            "register a name first")


async def rounds_of(bus: TournamentBus,
                    match_ids: list[str]) -> dict[str, TournamentRound]:
    """Lobby match id -> the tournament round it was, asking the tournament service
    once a tournament; one it cannot answer for is named by its id alone, and once it
    did not answer in time it is not asked again for the rest (a list waits for one
    timeout at most)."""
    wanted: dict[str, dict[str, str]] = {}  # tournament -> its match id -> lobby's
    for lobby_id in match_ids:
        found = parse_lobby_match_id(lobby_id)
        if found is not None:
            wanted.setdefault(found[0], {})[found[1]] = lobby_id
    out: dict[str, TournamentRound] = {}
    down = False
    for tid, matches in wanted.items():
        view = None
        if not down:
            try:
                view = await bus.get(tid)
            except LobbyError as exc:  # tournaments_unavailable, or gone
                down = exc.code == TOURNAMENTS_UNAVAILABLE
        if view is None:
            out.update({lobby_id: TournamentRound(tournament_id=tid, name="", round_no=0)
                        for lobby_id in matches.values()})
            continue
        teams = {t.team_id: t.name for t in view.teams}
        for m in view.matches:
            if m.match_id in matches:
                out[matches[m.match_id]] = TournamentRound(
                    tournament_id=tid, name=view.summary.name, round_no=m.round_no,
                    round_name=m.round_name, home=teams.get(m.home, ""),
                    away=teams.get(m.away, ""))
    return out


class Tournaments:
    def __init__(self, pool: store.Pool, tournaments: TournamentBus,
                 ratings: RatingsBus, broadcasts: Broadcasts) -> None:
        self.pool, self.bus, self.ratings = pool, tournaments, ratings
        self.broadcasts = broadcasts

    async def create(self, me: Claims, body: api.TournamentBody) -> api.TournamentChanged:
        await auth.require_organizer(self.pool, me)
        tid = str(uuid.uuid4())
        return _changed(await self.bus.write("create", tid, cmd.CreateTournament(
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
        return _changed(await self.bus.write("patch", tid, cmd.ChangeSettings(
            by=me.player_id, settings=settings_of(body))))

    async def cancel(self, me: Claims, tid: str) -> api.TournamentChanged:
        await self._organizing(me, tid)
        return _changed(await self.bus.write("cancel", tid, cmd.Cancel(by=me.player_id)))

    async def start_now(self, me: Claims, tid: str) -> api.TournamentChanged:
        await self._organizing(me, tid)
        return _changed(await self.bus.write("start_now", tid, cmd.StartNow(by=me.player_id)))

    async def placed(self, game_id: str) -> tuple[str, TournamentRound | None]:
        """What started a game (``table``, ``queue``, ``tournament``; empty if nothing
        the lobby knows) and, for a tournament's, which round and teams it is."""
        started = await match_store.origin_of(self.pool, game_id)
        if started is None:
            return "", None
        if started["origin"] != "tournament":
            return str(started["origin"]), None
        rounds = await self.rounds_of([started["match_id"]])
        return "tournament", rounds.get(started["match_id"])

    async def rounds_of(self, match_ids: list[str]) -> dict[str, TournamentRound]:
        """Lobby match id -> the tournament round it was (``rounds_of``)."""
        return await rounds_of(self.bus, match_ids)

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
        changed = _changed(await self.bus.write("register", tid, cmd.RegisterTeam(
            team_id=team_id, name=body.name, player=me.player_id, partner=partner,
            rating=sum(r.rating for r in rated) / len(rated))), team_id)
        if changed.events:  # a repeat changed nothing and invites nobody again
            view = await self.bus.get(tid)
            await self.broadcasts.note(partner, TournamentInvite(
                tournament_id=tid, tournament=view.summary.name, team_id=team_id,
                team=body.name, player_id=me.player_id, name=known[me.player_id][0]))
        return changed

    async def confirm(self, me: Claims, tid: str, team_id: str) -> api.TournamentChanged:
        return _changed(await self.bus.write("confirm", tid, cmd.ConfirmTeam(
            team_id=team_id, player=me.player_id)))

    async def withdraw(self, me: Claims, tid: str, team_id: str) -> api.TournamentChanged:
        return _changed(await self.bus.write("withdraw", tid, cmd.WithdrawTeam(
            team_id=team_id, player=me.player_id)))

    async def check_in(self, me: Claims, tid: str) -> api.TournamentChanged:
        return _changed(await self.bus.write("check_in", tid, cmd.CheckIn(
            player=me.player_id)))

    async def override(self, me: Claims, tid: str, match_id: str,
                       body: api.OverrideBody) -> api.TournamentChanged:
        await self._organizing(me, tid)
        return _changed(await self.bus.write("override", tid, cmd.OverrideResult(
            match_id=match_id, outcome=body.outcome, by=me.player_id, why=body.why,
            scores=body.scores)))

    async def disqualify(self, me: Claims, tid: str, team_id: str,
                         body: api.DisqualifyBody) -> api.TournamentChanged:
        await self._organizing(me, tid)
        return _changed(await self.bus.write("disqualify", tid, cmd.Disqualify(
            team_id=team_id, by=me.player_id, why=body.why)))

    async def add_bots(self, me: Claims, tid: str,
                       body: api.BotTeamBody) -> api.TournamentChanged:
        await self._organizing(me, tid)
        team_id = uuid.uuid4().hex[:16]
        return _changed(await self.bus.write("add_bots", tid, cmd.AddBotTeam(
            team_id=team_id, name=body.name, by=me.player_id, level=body.level)), team_id)

    async def seed(self, me: Claims, tid: str, body: api.SeedsBody) -> api.TournamentChanged:
        await self._organizing(me, tid)
        return _changed(await self.bus.write("seed", tid, cmd.SetSeeds(
            by=me.player_id, order=body.order)))

    async def set_pairings(self, me: Claims, tid: str, round_no: int,
                           body: api.PairingsBody) -> api.TournamentChanged:
        await self._organizing(me, tid)
        return _changed(await self.bus.write("set_pairings", tid, cmd.SetPairings(
            by=me.player_id, round_no=round_no, pairs=body.pairs, bye=body.bye)))

    async def waive_ban(self, me: Claims, tid: str,
                        body: api.WaiveBanBody) -> api.TournamentChanged:
        await self._organizing(me, tid)
        return _changed(await self.bus.write("waive_ban", tid, cmd.WaiveBan(
            player=body.player, by=me.player_id)))

    async def get(self, tid: str) -> api.TournamentView:
        """The tournament service's view, with the names of the people in it (a bot team's
        players have no account, and no name here)."""
        view = await self.bus.get(tid)
        people = [view.summary.organizer, *(p for t in view.teams for p in t.players)]
        return msgspec.structs.replace(view, names=await store.names(self.pool, people))

    async def events(self, tid: str, after: int, limit: int) -> api.TournamentEvents:
        return await self.bus.events(tid, after, limit)

    async def list(self, status: str | None, limit: int) -> api.TournamentList:
        return await self.bus.list(status, limit)

    async def standings(self, tid: str) -> api.Standings:
        view = await self.bus.get(tid)
        return api.Standings(tournament_id=tid, standings=view.standings)

    async def bracket(self, tid: str) -> api.Bracket:
        view = await self.bus.get(tid)
        rounds: dict[int, list[api.MatchView]] = {}
        for m in view.matches:
            rounds.setdefault(m.round_no, []).append(m)
        return api.Bracket(tournament_id=tid, format=view.summary.format,
                           rounds=[rounds[r] for r in sorted(rounds)])
