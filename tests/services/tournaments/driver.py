"""Drives a tournament through ``decide`` from creation to its end, the way the
scheduler and the results feed would, with results chosen by a seeded random
generator. Every command's events are folded, so the state is the stream's fold."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from engine.presets import PRESETS
from schemas.tournaments import commands as cmd
from schemas.tournaments import events as ev
from services.tournaments.decide import decide
from services.tournaments.formats.swiss import SwissRound, SwissTeam, pair
from services.tournaments.state import Tournament

MINUTE = 60_000
OPENS, CLOSES, STARTS = 0, 50 * MINUTE, 60 * MINUTE


def settings(kind: ev.FormatKind = "swiss", teams: int = 8,
             **options: object) -> ev.TournamentSettings:
    rules = PRESETS["quick"]
    return ev.TournamentSettings(
        name="Friday cup", format=ev.FormatOptions(kind=kind, **options),  # type: ignore[arg-type]
        rules=rules, min_teams=4, max_teams=teams, registration_opens_at=OPENS,
        registration_closes_at=CLOSES, check_in_minutes=15, starts_at=STARTS)


@dataclass
class Run:
    state: Tournament = field(default_factory=Tournament)
    events: list[ev.Event] = field(default_factory=list)
    fold: bool = False  # let ``decide`` apply the events itself (as a batch of results does)

    def do(self, command: cmd.TournamentCommand) -> list[ev.Event]:
        got = decide(self.state, command, fold=self.fold)
        for event in got if not self.fold else ():
            self.state.apply(event)
        self.events += got
        return got


def registered(s: ev.TournamentSettings, teams: int, check_in: bool = True) -> Run:
    """A tournament with ``teams`` confirmed (and checked-in) teams t01, t02 ...;
    team tNN's rating falls with NN, so t01 is the top seed."""
    run = Run()
    run.do(cmd.CreateTournament(at=OPENS, tournament_id="cup", organizer="org", settings=s))
    for i in range(1, teams + 1):
        team = f"t{i:02d}"
        run.do(cmd.RegisterTeam(at=OPENS + 1, team_id=team, name=f"Team {i}",
                                player=f"{team}a", partner=f"{team}b", rating=2000.0 - i))
        run.do(cmd.ConfirmTeam(at=OPENS + 2, team_id=team, player=f"{team}b"))
        if check_in:
            for p in "ab":
                run.do(cmd.CheckIn(at=STARTS - MINUTE, player=f"{team}{p}"))
    return run


def play_out(run: Run, rng: random.Random, draws: bool = False) -> None:
    """Start, then pair rounds and report random results until the tournament ends."""
    run.do(cmd.Start(at=STARTS))
    at = STARTS
    while run.state.status == "running":
        at += MINUTE
        open_matches = [m for m in run.state.matches.values() if m.outcome is None]
        if not open_matches:
            run.do(cmd.PairRound(at=at, seed=f"{rng.getrandbits(128):032x}"))
            continue
        for m in open_matches:
            home, away = rng.randrange(300, 600), rng.randrange(300, 600)
            if home == away and not draws:
                home += 1
            outcome: ev.Outcome = "home" if home > away else "away" if away > home else "draw"
            run.do(cmd.RecordResult(at=at, match_id=m.pairing.match_id, outcome=outcome,
                                    scores=(home, away), bags_taken=(rng.randrange(8),
                                                                     rng.randrange(8)),
                                    game_stream=f"game-{m.pairing.match_id}"))


def swiss_history(n: int, rounds: int, rng: random.Random,
            exact_limit: int) -> list[tuple[list[SwissTeam], SwissRound]]:
    """Play ``rounds`` Swiss rounds with random results; each round's input (the
    standings) and its pairing."""
    ids = [f"t{i:03d}" for i in range(n)]
    points = dict.fromkeys(ids, 0)
    opponents: dict[str, set[str]] = {t: set() for t in ids}
    byes: set[str] = set()
    out = []
    for _ in range(rounds):
        order = sorted(ids, key=lambda t: (-points[t], t))
        standing = [SwissTeam(t, points[t], frozenset(opponents[t]), t in byes) for t in order]
        drawn = pair(standing, f"{rng.getrandbits(128):032x}", exact_limit)
        out.append((standing, drawn))
        for a, b in drawn.pairs:
            opponents[a].add(b)
            opponents[b].add(a)
            points[rng.choice((a, b))] += 2
        if drawn.bye:
            byes.add(drawn.bye)
            points[drawn.bye] += 2
    return out
