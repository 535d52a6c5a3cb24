"""What deploy/ names (services, settings, ports, probe paths) exists in the code."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from services import catalog, registry
from services.platform.http import create_app
from services.platform.settings import Settings, env_names

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"


def compose() -> dict[str, Any]:
    return yaml.safe_load((DEPLOY / "compose.yaml").read_text())  # type: ignore[no-any-return]


def k8s() -> list[dict[str, Any]]:
    docs: list[dict[str, Any]] = []
    for path in sorted((DEPLOY / "k8s").glob("*.yaml")):
        docs.extend(d for d in yaml.safe_load_all(path.read_text()) if d)
    return docs


def deployments() -> dict[str, dict[str, Any]]:
    return {d["metadata"]["name"]: d for d in k8s()
            if d["kind"] == "Deployment" and d["metadata"]["labels"].get("app") == "spades"}


def settings_of(service: str) -> dict[str, str]:
    return env_names(registry.spec(service).settings)


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
        names = set(configmap["data"]) | {e["name"] for e in container.get("env", [])}
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
        cls: type[Settings] = registry.spec(service).settings
        assert all(env_names(cls).values()), service
