"""What deploy/ names (services, settings, ports, probe paths) exists in the code."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import yaml

from schemas import subjects
from services import catalog
from services.platform.http import create_app
from services.platform.settings import Settings, env_names, load

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"


def compose() -> dict[str, Any]:
    return yaml.safe_load((DEPLOY / "compose.yaml").read_text())


def k8s() -> list[dict[str, Any]]:
    docs: list[dict[str, Any]] = []
    for path in sorted((DEPLOY / "k8s").glob("*.yaml")):
        docs.extend(d for d in yaml.safe_load_all(path.read_text()) if d)
    return docs


def deployments() -> dict[str, dict[str, Any]]:
    return {d["metadata"]["name"]: d for d in k8s()
            if d["kind"] == "Deployment" and d["metadata"]["labels"].get("app") == "spades"}


def settings_of(service: str) -> dict[str, str]:
    return env_names(catalog.manifest(service).settings)


def served_paths() -> set[str]:
    app = create_app("probe", {}, lambda: True)
    return {route.path for route in app.routes}


def test_compose_runs_two_copies_of_every_service_and_nothing_else() -> None:
    services = compose()["services"]
    run = {name: spec for name, spec in services.items() if spec.get("command", [""])[0] == "serve"}
    assert {spec["command"][1] for spec in run.values()} == set(catalog.SERVICES)
    assert all(spec["deploy"]["replicas"] == 2 for spec in run.values())


def test_compose_has_postgres_and_a_three_node_nats_cluster_with_jetstream() -> None:
    services = compose()["services"]
    assert "postgres" in services
    nats = [name for name in services if name.startswith("nats-")]
    assert len(nats) == 3
    conf = (DEPLOY / "nats-cluster.conf").read_text()
    assert "jetstream" in conf and all(f"nats-route://{n}:6222" in conf for n in nats)


def test_every_setting_in_compose_exists_in_every_service() -> None:
    env = compose()["x-service"]["environment"]
    for service in catalog.SERVICES:
        assert set(env) <= set(settings_of(service)), service


def test_kubernetes_runs_two_copies_of_every_service() -> None:
    found = deployments()
    assert set(found) == set(catalog.SERVICES)
    for name, d in found.items():
        container = d["spec"]["template"]["spec"]["containers"][0]
        assert container["args"] == ["serve", name]
        assert d["spec"]["replicas"] == 2


def test_every_setting_in_kubernetes_exists_in_the_services() -> None:
    configmap = next(d for d in k8s() if d["kind"] == "ConfigMap" and
                     d["metadata"]["name"] == "spades-env")
    for name, d in deployments().items():
        container = d["spec"]["template"]["spec"]["containers"][0]
        env = container.get("env", [])
        # A variable that only feeds another one's value, as $(NAME), is no setting.
        feeds = {e["name"] for e in env if any(f"$({e['name']})" in str(o.get("value", ""))
                                               for o in env)}
        names = set(configmap["data"]) | {e["name"] for e in env} - feeds
        assert names <= set(settings_of(name)), name


def test_ports_and_probes_match_the_http_server() -> None:
    port = int(compose()["x-service"]["environment"]["SPADES_HTTP_PORT"])
    assert re.search(rf"^EXPOSE {port}$", (DEPLOY / "Containerfile").read_text(), re.M)
    assert f"127.0.0.1:{port}/readyz" in str(compose()["x-service"]["healthcheck"]["test"])
    paths = served_paths()
    for d in deployments().values():
        container = d["spec"]["template"]["spec"]["containers"][0]
        assert container["ports"][0]["containerPort"] == port
        assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
        assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert {"/healthz", "/readyz", "/metrics"} <= paths


def test_every_setting_is_documented() -> None:
    for service in catalog.SERVICES:
        cls: type[Settings] = catalog.manifest(service).settings
        assert all(env_names(cls).values()), service


def test_services_bind_this_machine_only_unless_deploy_says_otherwise() -> None:
    for service in catalog.SERVICES:
        settings = load(catalog.manifest(service).settings, {"DATABASE_URL": "-", "NATS_URL": "-"})
        assert settings.http_host == "127.0.0.1", service
    assert compose()["x-service"]["environment"]["SPADES_HTTP_HOST"] == "0.0.0.0"
    configmap = next(d for d in k8s() if d["kind"] == "ConfigMap" and
                     d["metadata"]["name"] == "spades-env")
    assert configmap["data"]["SPADES_HTTP_HOST"] == "0.0.0.0"


# What each service does on the bus, in the code's own names (no prefix in production).
_N = subjects.Names()
USES: dict[str, dict[str, list[str]]] = {
    "lobby": {"publish": [_N.game_create, _N.game_command("g1"), _N.game_events_since,
                          _N.game_chat("g1"), _N.lobby_tables, _N.lobby_presence("g1"),
                          _N.player_note("p1"), _N.endpoint("ratings", "leaderboard"),
                          _N.endpoint("tournaments", "register"), "$SRV.PING",
                          _N.lobby_match("queue", "m1")],
              "subscribe": [_N.game_chat("g1"), _N.lobby_tables, _N.lobby_presence("g1"),
                            _N.player_notes_all, _N.tournament_events_all,
                            _N.endpoint("lobby", "status"), _N.endpoint("lobby", "open_match"),
                            _N.lobby_matches_of("queue"), _N.ranked_barred]},
    "game": {"publish": [_N.game_event("g1", "CardPlayed"), _N.game_chat("g1"),
                         _N.game_handover],
             "subscribe": [_N.game_create, _N.game_command("g1"), _N.game_events_since,
                           _N.game_handover, _N.endpoint("game", "status")]},
    "ratings": {"publish": [_N.player_note("p1"), _N.ranked_barred],
                "subscribe": [_N.endpoint("ratings", "status")]},
    "tournaments": {"publish": [_N.tournament_event("tournament-t1", "RoundPaired"),
                                _N.endpoint("lobby", "open_match"), _N.player_note("p1"),
                                _N.game_events_since],
                    "subscribe": [_N.endpoint("tournaments", "status"),
                                  _N.endpoint("tournaments", "register")]},
}
# What a service must never do: start games, write game or tournament events or match
# outcomes, answer for another.
_TOURNAMENT_EVENT = _N.tournament_event("tournament-t1", "MatchResult")
_OUTCOME = _N.lobby_match("tournament", "m1")
NEVER: dict[str, list[str]] = {
    "lobby": [_N.game_event("g1", "GameEnded"), _N.endpoint("game", "x"), _TOURNAMENT_EVENT],
    "game": [_N.game_create, _N.lobby_tables, _TOURNAMENT_EVENT, _OUTCOME],
    "ratings": [_N.game_create, _N.game_event("g1", "GameEnded"), _N.game_command("g1"),
                _TOURNAMENT_EVENT, _OUTCOME],
    "tournaments": [_N.game_create, _N.game_event("g1", "GameEnded"), _N.game_command("g1"),
                    _OUTCOME],
}


def nats_users() -> dict[str, dict[str, list[str]]]:
    text = (DEPLOY / "nats-users.conf").read_text()
    users = {}
    for m in re.finditer(r"\{user: (\w+),.*?publish: \{allow: \[(.*?)\]\},\s*subscribe: "
                         r"\{allow: \[(.*?)\]\}", text, re.S):
        users[m[1]] = {kind: re.findall(r'"([^"]+)"', m[i])
                       for kind, i in (("publish", 2), ("subscribe", 3))}
    return users


def matches(pattern: str, subject: str) -> bool:
    p, s = pattern.split("."), subject.split(".")
    for i, token in enumerate(p):
        if token == ">":
            return len(s) > i
        if i >= len(s) or (token != "*" and token != s[i]):
            return False
    return len(p) == len(s)


def test_nats_users_allow_what_each_service_uses_and_nothing_it_must_not() -> None:
    users = nats_users()
    assert set(users) == set(catalog.SERVICES)
    assert _N.game_events_stream in str(users)
    assert _N.tournament_events_stream in str(users["tournaments"])
    for service, uses in USES.items():
        for kind, wanted in uses.items():
            for subject in wanted:
                assert any(matches(p, subject) for p in users[service][kind]), \
                    (service, kind, subject)
        for subject in NEVER[service]:
            assert not any(matches(p, subject) for p in users[service]["publish"]), \
                (service, subject)
    assert "include ./nats-users.conf" in (DEPLOY / "nats-cluster.conf").read_text()
    nats_config = next(d for d in k8s() if d["kind"] == "ConfigMap" and
                       d["metadata"]["name"] == "nats-config")
    assert nats_config["data"]["users.conf"].split() == \
        (DEPLOY / "nats-users.conf").read_text().split()


def test_the_image_installs_the_wheel_built_from_every_package_of_the_tree() -> None:
    build, _, final = (DEPLOY / "Containerfile").read_text().rpartition("\nFROM ")
    packages = tomllib.loads((DEPLOY.parent / "pyproject.toml").read_text())[
        "tool"]["setuptools"]["packages"]["find"]["include"]
    copied = set(re.findall(r"^COPY (\w+) \1$", build, re.M))
    assert {p.rstrip("*") for p in packages} <= copied
    assert re.search(r"pip wheel .*--no-deps .*--wheel-dir /dist \.", build)
    assert re.search(r"pip install .*/dist/spades_platform-\*\.whl", build)
    # The running image holds the installed environment only, no source tree.
    assert re.findall(r"^COPY .*$", final, re.M) == ["COPY --from=build /venv /venv"]
