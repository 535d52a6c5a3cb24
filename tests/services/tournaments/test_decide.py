"""Tournament decisions, command by command: the events each yields, and the typed error
each bad request gets with nothing changed. Whole tournaments: test_whole_tournaments.py."""

from __future__ import annotations

import copy
import hashlib
import random
from typing import get_args

import msgspec
import pytest

from schemas.tournaments import commands as cmd
from schemas.tournaments import events as ev
from services.tournaments import formats
from services.tournaments.decide import decide, standings_of
from services.tournaments.errors import CODES, TournamentError
from services.tournaments.state import fold

from .driver import CLOSES, MINUTE, OPENS, STARTS, Run, registered
from .driver import settings as make_settings


def refused(run: Run, command: cmd.TournamentCommand, code: str) -> None:
    """The command is refused with ``code`` and the state is as it was."""
    before = copy.deepcopy(run.state)
    with pytest.raises(TournamentError) as err:
        decide(run.state, command)
    assert err.value.code == code and code in CODES
    assert run.state == before


def created(s: ev.TournamentSettings | None = None) -> Run:
    run = Run()
    run.do(cmd.CreateTournament(at=OPENS, tournament_id="cup", organizer="org",
                                settings=s or make_settings()))
    return run


def register(run: Run, team: str, at: int = OPENS + 1, confirm: bool = True) -> None:
    run.do(cmd.RegisterTeam(at=at, team_id=team, name=team, player=f"{team}a",
                            partner=f"{team}b"))
    if confirm:
        run.do(cmd.ConfirmTeam(at=at, team_id=team, player=f"{team}b"))


# --- Settings --------------------------------------------------------------------------------


@pytest.mark.parametrize(("change", "code"), [
    ({"min_teams": 8, "max_teams": 4}, "max_below_min"),
    ({"registration_closes_at": STARTS + 1}, "bad_window"),
    ({"check_in_minutes": 24 * 60}, "check_in_outside_window"),
    ({"rated": True}, "rated_needs_ranked_rules"),
])
def test_bad_settings_are_refused(change: dict, code: str) -> None:
    s = msgspec.structs.replace(make_settings(), **change)
    with pytest.raises(TournamentError) as err:
        decide(fold([]), cmd.CreateTournament(tournament_id="x", organizer="o", settings=s))
    assert err.value.code == code


@pytest.mark.parametrize(("kind", "options", "code"), [
    ("single_elimination", {"deals": "duplicate"}, "duplicate_needs_rounds"),
    ("swiss", {"rounds": 9}, "too_many_rounds"),
    ("round_robin", {"groups": 3}, "too_many_groups"),
    ("double_round_robin", {"groups": 3}, "too_many_groups"),
    ("double_round_robin", {"late_join": True}, "late_join_needs_swiss"),
    ("single_elimination", {"tiebreaks": ("buchholz",)}, "bad_tiebreaks"),
])
def test_format_options_are_checked(kind: ev.FormatKind, options: dict, code: str) -> None:
    s = make_settings(kind, 8, **options)
    with pytest.raises(TournamentError) as err:
        decide(fold([]), cmd.CreateTournament(tournament_id="x", organizer="o", settings=s))
    assert err.value.code == code


def test_elimination_refuses_rules_that_end_in_a_draw() -> None:
    s = make_settings("single_elimination")
    s = msgspec.structs.replace(s, rules=msgspec.structs.replace(s.rules, tie="draw"))
    with pytest.raises(TournamentError) as err:
        decide(fold([]), cmd.CreateTournament(tournament_id="x", organizer="o", settings=s))
    assert err.value.code == "draw_in_elimination"


def test_an_unknown_format_is_refused_when_decoded() -> None:
    body = msgspec.json.encode(make_settings()).replace(b'"swiss"', b'"ladder"')
    with pytest.raises(msgspec.ValidationError):
        msgspec.json.decode(body, type=ev.TournamentSettings)


def test_every_format_name_has_its_format_and_no_format_is_unnamed() -> None:
    assert set(get_args(ev.FormatKind)) == set(formats.FORMATS)
    assert all(formats.of(kind).kind == kind for kind in formats.FORMATS)


def test_creating_twice_is_creating_once() -> None:
    run = created()
    again = cmd.CreateTournament(at=OPENS, tournament_id="cup", organizer="org",
                                 settings=make_settings())
    assert decide(run.state, again) == []
    refused(run, cmd.CreateTournament(tournament_id="cup", organizer="other",
                                      settings=make_settings()), "tournament_exists")


def test_only_the_organizer_changes_settings_and_only_before_the_start() -> None:
    run = created()
    changed = msgspec.structs.replace(make_settings(), name="Saturday cup")
    refused(run, cmd.ChangeSettings(by="t01a", settings=changed), "not_organizer")
    assert [type(e) for e in run.do(cmd.ChangeSettings(by="org", settings=changed))] == [
        ev.SettingsChanged]
    assert run.state.settings is not None and run.state.settings.name == "Saturday cup"
    refused(run, cmd.Cancel(by="t01a"), "not_organizer")
    run.do(cmd.Cancel(by="org"))
    assert run.state.status == "cancelled"
    refused(run, cmd.ChangeSettings(by="org", settings=make_settings()), "tournament_over")


# --- Registration ----------------------------------------------------------------------------


def test_registration_refuses_self_partners_doubles_and_closed_windows() -> None:
    run = created()
    register(run, "t1")
    refused(run, cmd.RegisterTeam(at=OPENS + 1, team_id="t2", name="x", player="p",
                                  partner="p"), "self_partner")
    refused(run, cmd.RegisterTeam(at=OPENS + 1, team_id="t2", name="x", player="t1b",
                                  partner="q"), "already_registered")
    refused(run, cmd.RegisterTeam(at=CLOSES, team_id="t2", name="x", player="p",
                                  partner="q"), "registration_closed")
    refused(run, cmd.RegisterTeam(at=OPENS + 1, team_id="t1", name="x", player="p",
                                  partner="q"), "team_exists")
    # The same registration again is a no-op.
    assert decide(run.state, cmd.RegisterTeam(at=OPENS + 2, team_id="t1", name="t1",
                                              player="t1a", partner="t1b")) == []


def test_two_teams_never_share_a_name_in_any_case() -> None:
    run = created()
    register(run, "t1")
    run.do(cmd.AddBotTeam(at=OPENS + 1, team_id="b1", name="Robots", by="org", level="basic"))
    for taken in (cmd.RegisterTeam(at=OPENS + 1, team_id="t2", name=" T1 ", player="p",
                                   partner="q"),
                  cmd.AddBotTeam(at=OPENS + 1, team_id="b2", name="t1", by="org", level="basic"),
                  cmd.AddBotTeam(at=OPENS + 1, team_id="b2", name="robots", by="org",
                                 level="basic")):
        refused(run, taken, "team_name_taken")
    # A withdrawn team's name is free again.
    run.do(cmd.WithdrawTeam(at=OPENS + 2, team_id="t1", player="t1a"))
    register(run, "t3")
    run.do(cmd.RegisterTeam(at=OPENS + 3, team_id="t4", name="T1", player="p", partner="q"))


def test_only_the_invited_partner_confirms() -> None:
    run = created()
    register(run, "t1", confirm=False)
    refused(run, cmd.ConfirmTeam(team_id="t1", player="t1a"), "not_partner")
    refused(run, cmd.ConfirmTeam(team_id="nope", player="t1b"), "no_team")
    run.do(cmd.ConfirmTeam(team_id="t1", player="t1b"))
    assert decide(run.state, cmd.ConfirmTeam(team_id="t1", player="t1b")) == []


def test_past_the_cap_teams_wait_and_exactly_max_are_placed() -> None:
    run = created(make_settings("swiss", teams=4))
    for i in range(6):
        register(run, f"t{i}", confirm=False)
    for i in reversed(range(6)):  # confirmations arrive in any order
        run.do(cmd.ConfirmTeam(team_id=f"t{i}", player=f"t{i}b"))
    placed = [t for t in run.state.teams.values() if t.confirmed and not t.waiting]
    assert len(placed) == 4
    assert {t.team_id for t in run.state.teams.values() if t.waiting} == {"t1", "t0"}


def test_check_in_only_in_its_window_and_by_confirmed_teams() -> None:
    run = created()
    register(run, "t1")
    register(run, "t2", confirm=False)
    refused(run, cmd.CheckIn(at=STARTS - 16 * MINUTE, player="t1a"), "check_in_closed")
    refused(run, cmd.CheckIn(at=STARTS, player="t1a"), "check_in_closed")
    refused(run, cmd.CheckIn(at=STARTS - MINUTE, player="t2a"), "not_confirmed")
    refused(run, cmd.CheckIn(at=STARTS - MINUTE, player="stranger"), "not_in_team")
    run.do(cmd.CheckIn(at=STARTS - MINUTE, player="t1a"))
    assert decide(run.state, cmd.CheckIn(at=STARTS - MINUTE, player="t1a")) == []


def test_at_the_start_absent_teams_drop_and_checked_in_waiting_teams_move_up() -> None:
    run = created(make_settings("swiss", teams=4))
    for i in range(6):
        register(run, f"t{i}")
    for i in (0, 1, 2, 4, 5):  # t3 is placed but absent; t4 and t5 wait
        for p in "ab":
            run.do(cmd.CheckIn(at=STARTS - MINUTE, player=f"t{i}{p}"))
    refused(run, cmd.Start(at=STARTS - 1), "too_early")
    got = run.do(cmd.Start(at=STARTS))
    closed = got[0]
    assert isinstance(closed, ev.CheckInClosed)
    assert closed.promoted == ("t4",) and set(closed.dropped) == {"t3", "t5"}
    assert set(run.state.seeds) == {"t0", "t1", "t2", "t4"}


def test_too_few_teams_at_the_start_cancel_the_tournament() -> None:
    run = created()
    register(run, "t1")
    got = run.do(cmd.Start(at=STARTS))
    assert isinstance(got[-1], ev.TournamentCancelled) and got[-1].reason == "too_few_teams"
    assert run.state.status == "cancelled"


def test_the_organizer_starts_now_with_the_teams_checked_in_as_the_start_would() -> None:
    run = created(make_settings("single_elimination", teams=8))
    for i in range(5):
        register(run, f"t{i}")
    early = STARTS - 10 * MINUTE
    for i in range(3):  # t3 and t4 are confirmed but not checked in
        for p in "ab":
            run.do(cmd.CheckIn(at=early, player=f"t{i}{p}"))
    refused(run, cmd.StartNow(at=early, by="t0a"), "not_organizer")
    refused(run, cmd.StartNow(at=early, by="org"), "not_enough_teams")  # 3 of min 4
    assert run.state.status == "registering"
    for p in "ab":
        run.do(cmd.CheckIn(at=early, player=f"t3{p}"))
    got = run.do(cmd.StartNow(at=early, by="org"))
    # What the timer's start adds: the check-in closed, the start, the draw, the first
    # matches; a day early is no matter.
    assert [type(e).__name__ for e in got] == [
        "CheckInClosed", "TournamentStarted", "BracketDrawn", "MatchesPaired"]
    closed, started = got[0], got[1]
    assert isinstance(closed, ev.CheckInClosed) and closed.dropped == ("t4",)
    assert isinstance(started, ev.TournamentStarted) and started.at == early
    assert run.state.status == "running" and set(run.state.seeds) == {"t0", "t1", "t2", "t3"}
    refused(run, cmd.StartNow(at=early, by="org"), "already_started")
    refused(run, cmd.Start(at=STARTS), "already_started")


def test_without_a_check_in_starting_now_counts_the_confirmed_teams() -> None:
    run = created(msgspec.structs.replace(make_settings("swiss"), check_in_minutes=0))
    for i in range(4):
        register(run, f"t{i}", confirm=i != 3)
    refused(run, cmd.StartNow(at=OPENS + 5, by="org"), "not_enough_teams")
    run.do(cmd.ConfirmTeam(at=OPENS + 6, team_id="t3", player="t3b"))
    got = run.do(cmd.StartNow(at=OPENS + 7, by="org"))
    assert [type(e).__name__ for e in got] == ["CheckInClosed", "TournamentStarted"]
    assert run.state.status == "running" and len(run.state.seeds) == 4


def test_an_ended_tournament_starts_no_more_and_takes_no_withdrawal() -> None:
    run = registered(make_settings("single_elimination", 8), 4)
    run.do(cmd.Start(at=STARTS))
    while run.state.status == "running":
        m = next(m for m in run.state.matches.values() if m.outcome is None)
        run.do(cmd.RecordResult(at=STARTS + MINUTE, match_id=m.pairing.match_id,
                                outcome="home", scores=(500, 200)))
    assert run.state.status == "finished"
    refused(run, cmd.WithdrawTeam(team_id="t01", player="t01a"), "tournament_over")
    refused(run, cmd.StartNow(by="org"), "tournament_over")
    cancelled = registered(make_settings("swiss", 8), 4)
    cancelled.do(cmd.Cancel(by="org"))
    refused(cancelled, cmd.WithdrawTeam(team_id="t01", player="t01a"), "tournament_over")
    refused(cancelled, cmd.StartNow(by="org"), "tournament_over")


def test_seeds_follow_the_rating() -> None:
    run = registered(make_settings("single_elimination", 8), 4)
    run.do(cmd.Start(at=STARTS))
    assert run.state.seeds == ("t01", "t02", "t03", "t04")


def test_the_organizer_enters_bot_teams_ready_to_play_in_unrated_tournaments_only() -> None:
    run = registered(make_settings("single_elimination", 8), 3)
    refused(run, cmd.AddBotTeam(team_id="b", name="Robots", by="t01a"), "not_organizer")
    got = run.do(cmd.AddBotTeam(team_id="b", name="Robots", by="org", level="expert"))
    assert [type(e).__name__ for e in got] == [
        "TeamRegistered", "TeamConfirmed", "TeamCheckedIn", "TeamCheckedIn"]
    assert run.state.teams["b"].players == ("bot:expert:b:1", "bot:expert:b:2")
    assert decide(run.state, cmd.AddBotTeam(team_id="b", name="Robots", by="org",
                                            level="expert")) == []
    ranked = msgspec.structs.replace(make_settings("single_elimination", 8), rated=True,
                                     rules=msgspec.structs.replace(
                                         make_settings().rules, preset="ranked"))
    refused(run, cmd.ChangeSettings(by="org", settings=ranked), "rated_needs_people")
    refused(created(ranked), cmd.AddBotTeam(team_id="c", name="C", by="org"),
            "rated_needs_people")
    run.do(cmd.Start(at=STARTS))
    assert "b" in run.state.seeds


def test_the_organizer_seeds_by_hand_and_the_rest_follow_the_rating() -> None:
    run = registered(make_settings("single_elimination", 8), 4)
    refused(run, cmd.SetSeeds(by="t01a", order=("t04",)), "not_organizer")
    refused(run, cmd.SetSeeds(by="org", order=("t04", "t04")), "bad_seeds")
    refused(run, cmd.SetSeeds(by="org", order=("t09",)), "bad_seeds")
    run.do(cmd.SetSeeds(by="org", order=("t04", "t03")))
    assert decide(run.state, cmd.SetSeeds(by="org", order=("t04", "t03"))) == []
    run.do(cmd.Start(at=STARTS))
    assert run.state.seeds == ("t04", "t03", "t01", "t02")
    refused(run, cmd.SetSeeds(by="org", order=("t01",)), "already_started")


# --- Playing ---------------------------------------------------------------------------------


def test_a_late_team_joins_a_swiss_until_half_the_rounds_with_a_half_point_bye() -> None:
    run = registered(make_settings("swiss", 8, rounds=4, late_join=True), 5)
    run.do(cmd.Start(at=STARTS))
    late = cmd.RegisterTeam(at=STARTS + 1, team_id="late", name="Late", player="la",
                            partner="lb")
    run.do(late)
    run.do(cmd.PairRound(seed="11" * 16))
    got = run.do(cmd.ConfirmTeam(at=STARTS + 2, team_id="late", player="lb"))
    assert [type(e).__name__ for e in got] == ["TeamConfirmed", "TeamJoined"]
    assert run.state.seeds[-1] == "late" and run.state.entrants == 5
    assert "late" not in [t for m in run.state.matches.values()
                          for t in (m.pairing.home, m.pairing.away)]
    rows = {r.team_id: r for r in standings_of(run.state)}
    assert rows["late"].match_points == 1  # half a point
    for m in list(run.state.matches.values()):
        run.do(cmd.RecordResult(match_id=m.pairing.match_id, outcome="home"))
    got = run.do(cmd.PairRound(seed="22" * 16))
    (paired,) = [e for e in got if isinstance(e, ev.RoundPaired)]
    assert "late" in [t for p in paired.pairings for t in (p.home, p.away)] + list(paired.byes)
    for m in [m for m in run.state.matches.values() if m.outcome is None]:
        run.do(cmd.RecordResult(match_id=m.pairing.match_id, outcome="home"))
    # Half the rounds have started: no more late joiners.
    refused(run, cmd.RegisterTeam(at=STARTS + 3, team_id="later", name="Later", player="x",
                                  partner="y"), "already_started")
    with pytest.raises(TournamentError) as err:
        decide(Run().state, cmd.CreateTournament(
            tournament_id="rr", organizer="org",
            settings=make_settings("round_robin", 8, late_join=True)))
    assert err.value.code == "late_join_needs_swiss"


def test_the_organizer_sets_the_next_swiss_rounds_pairings_by_hand() -> None:
    run = registered(make_settings("swiss", 8), 5)
    run.do(cmd.Start(at=STARTS))
    run.do(cmd.PairRound(seed="11" * 16))
    hand = (("t05", "t01"), ("t02", "t04"))
    refused(run, cmd.SetPairings(by="t01a", round_no=2, pairs=hand, bye="t03"),
            "not_organizer")
    refused(run, cmd.SetPairings(by="org", round_no=3, pairs=hand, bye="t03"), "bad_round")
    refused(run, cmd.SetPairings(by="org", round_no=2, pairs=hand), "bad_pairings")
    refused(run, cmd.SetPairings(by="org", round_no=2, pairs=(("t05", "t05"), ("t02", "t04")),
                                 bye="t03"), "bad_pairings")
    run.do(cmd.SetPairings(by="org", round_no=2, pairs=hand, bye="t03"))
    for m in list(run.state.matches.values()):
        run.do(cmd.RecordResult(match_id=m.pairing.match_id, outcome="home"))
    got = run.do(cmd.PairRound(seed="22" * 16))
    (paired,) = [e for e in got if isinstance(e, ev.RoundPaired)]
    assert [(p.home, p.away) for p in paired.pairings] == list(hand)
    assert paired.byes == ("t03",)
    elim = registered(make_settings("single_elimination", 8), 4)
    elim.do(cmd.Start(at=STARTS))
    refused(elim, cmd.SetPairings(by="org", round_no=1, pairs=()), "not_swiss")


def test_a_result_is_written_once() -> None:
    run = registered(make_settings("single_elimination", 8), 4)
    run.do(cmd.Start(at=STARTS))
    result = cmd.RecordResult(match_id="W1-1", outcome="home", scores=(500, 200),
                              game_stream="game-1")
    run.do(result)
    assert decide(run.state, result) == []  # a redelivered GameEnded
    refused(run, cmd.RecordResult(match_id="W1-1", outcome="away", game_stream="game-2"),
            "result_exists")
    refused(run, cmd.RecordResult(match_id="W1-2", outcome="draw"), "draw_not_allowed")
    refused(run, cmd.RecordResult(match_id="W9-9", outcome="home"), "no_match")


def test_elimination_pairs_a_match_once_both_teams_are_known() -> None:
    run = registered(make_settings("single_elimination", 8), 5)
    got = run.do(cmd.Start(at=STARTS))
    paired = [p.match_id for e in got if isinstance(e, ev.MatchesPaired) for p in e.pairings]
    # Seeds 4 and 5 meet; 1, 2 and 3 have byes, so 2 and 3 already know their match.
    assert paired == ["W1-2", "W2-2"]
    got = run.do(cmd.RecordResult(match_id="W1-2", outcome="away"))
    sides = [(p.match_id, p.home, p.away) for e in got if isinstance(e, ev.MatchesPaired)
             for p in e.pairings]
    assert sides == [("W2-1", "t01", "t05")]


def test_two_forfeits_withdraw_a_team_and_forfeit_its_next_matches() -> None:
    run = registered(make_settings("round_robin", 8), 4)
    run.do(cmd.Start(at=STARTS))
    rng = random.Random(1)
    for round_no in (1, 2):
        run.do(cmd.PairRound(at=STARTS, seed=f"{rng.getrandbits(128):032x}"))
        for match_id in run.state.rounds[-1].match_ids:
            p = run.state.matches[match_id].pairing
            if run.state.matches[match_id].outcome is None:
                loser_home = p.home == "t04"
                run.do(cmd.RecordResult(match_id=match_id, reason="no_show" if "t04" in (
                    p.home, p.away) else "played", outcome="away" if loser_home else "home"))
        assert run.state.rounds[-1].completed, round_no
    assert run.state.teams["t04"].withdrawn == "forfeits"
    got = run.do(cmd.PairRound(at=STARTS, seed=f"{rng.getrandbits(128):032x}"))
    forfeited = [e for e in got if isinstance(e, ev.MatchResult)]
    assert len(forfeited) == 1 and forfeited[0].reason == "forfeit"


def test_a_double_forfeit_in_elimination_lets_the_next_opponent_advance() -> None:
    run = registered(make_settings("single_elimination", 8), 4)
    run.do(cmd.Start(at=STARTS))
    run.do(cmd.RecordResult(match_id="W1-1", outcome="double_forfeit", reason="no_show"))
    got = run.do(cmd.RecordResult(match_id="W1-2", outcome="home"))
    assert isinstance(got[-1], ev.TournamentFinished) and got[-1].champion == "t02"


def test_an_override_names_who_and_why_until_the_next_match_is_paired() -> None:
    run = registered(make_settings("single_elimination", 8), 4)
    run.do(cmd.Start(at=STARTS))
    run.do(cmd.RecordResult(match_id="W1-1", outcome="home"))
    refused(run, cmd.OverrideResult(match_id="W1-1", outcome="away", by="t01a", why="x"),
            "not_organizer")
    got = run.do(cmd.OverrideResult(match_id="W1-1", outcome="away", by="org",
                                    why="scoring error"))
    assert got[0] == ev.ResultOverridden(match_id="W1-1", outcome="away", scores=(0, 0),
                                         by="org", why="scoring error")
    run.do(cmd.RecordResult(match_id="W1-2", outcome="home"))
    assert run.state.matches["W2-1"].pairing.home == "t04"
    refused(run, cmd.OverrideResult(match_id="W1-1", outcome="home", by="org", why="y"),
            "override_too_late")


def test_a_disqualified_team_forfeits_its_open_match() -> None:
    run = registered(make_settings("single_elimination", 8), 4)
    run.do(cmd.Start(at=STARTS))
    got = run.do(cmd.Disqualify(team_id="t04", by="org", why="abuse"))
    assert isinstance(got[0], ev.TeamWithdrawn) and got[0].reason == "disqualified"
    assert any(isinstance(e, ev.MatchResult) and e.match_id == "W1-1" and e.outcome == "home"
               for e in got)


def test_pairing_rounds_is_for_swiss_and_round_robin_one_round_at_a_time() -> None:
    run = registered(make_settings("swiss", 8), 6)
    run.do(cmd.Start(at=STARTS))
    refused(run, cmd.PairRound(seed="ab"), "bad_seed")
    run.do(cmd.PairRound(seed="11" * 16))
    refused(run, cmd.PairRound(seed="22" * 16), "round_in_progress")
    elim = registered(make_settings("single_elimination", 8), 4)
    elim.do(cmd.Start(at=STARTS))
    refused(elim, cmd.PairRound(seed="11" * 16), "not_paired_by_rounds")


def test_duplicate_deals_commit_to_the_seed_and_reveal_it_after_the_round() -> None:
    run = registered(make_settings("swiss", 8, deals="duplicate"), 4)
    run.do(cmd.Start(at=STARTS))
    seed = "ab" * 16
    paired = run.do(cmd.PairRound(seed=seed))[0]
    assert isinstance(paired, ev.RoundPaired)
    assert paired.deal_seed_hash == hashlib.sha256(bytes.fromhex(seed)).hexdigest()
    got: list[ev.Event] = []
    for match_id in run.state.rounds[0].match_ids:
        got = run.do(cmd.RecordResult(match_id=match_id, outcome="home"))
    assert got[-1] == ev.RoundCompleted(round_no=1, deal_seed=seed)
