"""The dashboards and alerts of deploy/ read metrics the running services serve.

The four services run as their own processes on the session's Postgres and NATS, a
table of four bots plays a game to its end (so labelled metrics have samples), and
every service's ``/metrics`` is read. A Grafana panel or a Prometheus rule that names a
metric none of them serves fails here, and so does one that filters or groups on a label
the metric does not carry (where the metric has samples to tell).
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
import yaml
from prometheus_client.parser import text_string_to_metric_families

from services import catalog
from tests.services.lobby.harness import ROOT, Player, Service, lobby_env, start
from tests.waiting import until

DEPLOY = ROOT / "deploy"
OPERATORS = (ROOT / "docs" / "operators.md").read_text()
# The one series Prometheus writes itself for every target it scrapes (1 when the scrape
# answered): a process that is down serves nothing, so only this can say so.
SCRAPED_BY_PROMETHEUS = {"up": {"job", "instance"}}
TARGET_LABELS = {"job", "instance"}  # Prometheus adds these to every scraped series
KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "bool", "and",
            "or", "unless", "offset", "inf", "nan"}
_SUFFIXES = {"counter": ("_total", "_created"), "gauge": ("",), "unknown": ("",),
             "histogram": ("_bucket", "_count", "_sum", "_created"),
             "summary": ("", "_count", "_sum", "_created"), "info": ("_info",)}


def dashboards() -> dict[str, dict[str, Any]]:
    return {p.name: json.loads(p.read_text()) for p in sorted((DEPLOY / "grafana").glob("*.json"))}


def panel_queries() -> list[tuple[str, str]]:
    """(where, PromQL) of every panel's every query, rows' nested panels included."""
    found = []
    for name, board in dashboards().items():
        stack = list(board["panels"])
        while stack:
            panel = stack.pop()
            stack.extend(panel.get("panels", []))
            found += [(f"{name}: {panel['title']}", t["expr"]) for t in panel.get("targets", [])]
    return found


def alert_rules() -> list[dict[str, Any]]:
    groups = yaml.safe_load((DEPLOY / "prometheus" / "alerts.yml").read_text())["groups"]
    return [rule for group in groups for rule in group["rules"]]


def _strip(expr: str) -> str:
    """The expression without strings, label matchers, ranges and grouping clauses."""
    text = re.sub(r'"(?:\\.|[^"\\])*"', '""', expr)
    text = re.sub(r"\{[^}]*\}", " ", text)
    text = re.sub(r"\[[^\]]*\]", " ", text)
    return re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", text)


def metric_names(expr: str) -> set[str]:
    """The series an expression reads: every name that is no function, keyword or label."""
    text = _strip(expr)
    return {m[0] for m in re.finditer(r"[A-Za-z_:][A-Za-z0-9_:]*", text)
            if m[0] not in KEYWORDS and not text[m.end():].lstrip().startswith("(")}


def labels_used(expr: str) -> set[str]:
    """The labels an expression matches on or groups by."""
    text = re.sub(r'"(?:\\.|[^"\\])*"', '""', expr)
    used = {m[1] for block in re.findall(r"\{([^}]*)\}", text)
            for m in re.finditer(r"([A-Za-z_][A-Za-z0-9_]*)\s*(?:=~|!~|!=|=)", block)}
    for clause in re.findall(r"\b(?:by|without|on|ignoring)\s*\(([^)]*)\)", text):
        used |= {label.strip() for label in clause.split(",") if label.strip()}
    return used


def test_the_query_reader_finds_metrics_and_labels() -> None:
    expr = ('histogram_quantile(0.99, sum by (le, kind) (rate(spades_a_bucket{origin="x"}'
            '[$__rate_interval]))) / on () max(spades_b) > 0.5 and spades_c unless up')
    assert metric_names(expr) == {"spades_a_bucket", "spades_b", "spades_c", "up"}
    assert labels_used(expr) == {"le", "kind", "origin"}


def served(text: str) -> dict[str, set[str] | None]:
    """Every series name one ``/metrics`` serves, with the labels its samples carry (None
    for a family declared without samples yet: its labels cannot be told)."""
    found: dict[str, set[str] | None] = {}
    for family in text_string_to_metric_families(text):
        for suffix in _SUFFIXES[family.type]:
            found.setdefault(family.name + suffix, None)
        for sample in family.samples:
            labels = found.get(sample.name) or set()
            found[sample.name] = labels | set(sample.labels)
    return found


@pytest.fixture(scope="module")
async def metrics(tmp_path_factory: pytest.TempPathFactory, database_url: str, nats_url: str,
                  nats_prefix: str) -> AsyncIterator[dict[str, set[str] | None]]:
    """What the four services serve together, after a game of four bots."""
    logs = tmp_path_factory.mktemp("dashboards")
    env = lobby_env(database_url, nats_url, f"{nats_prefix}dash", SPADES_BOT_THINK_MS="0")
    running: list[Service] = []
    try:
        for name in catalog.SERVICES:
            running.append(start(name, logs / f"{name}.log", **env))
        await play_a_bot_game(running[catalog.SERVICES.index("lobby")])
        found: dict[str, set[str] | None] = {}
        for svc in running:
            answer = httpx.get(f"{svc.url}/metrics", timeout=10)
            assert answer.status_code == 200, svc.name
            for name, labels in served(answer.text).items():
                if labels is None:
                    found.setdefault(name, None)
                else:
                    found[name] = (found.get(name) or set()) | labels
        yield found
    finally:
        for svc in reversed(running):
            svc.stop()


async def play_a_bot_game(lobby: Service) -> None:
    """A table of four bots, started and played to its end."""
    host = await Player.guest(lobby.url, "Dashboards")
    t = await host.ok("POST", "/v1/tables", {"rules": "quick", "seat": None})
    t = await host.ok("POST", f"/v1/tables/{t['table_id']}/start")

    async def over() -> bool:
        table = await host.ok("GET", f"/v1/tables/{t['table_id']}")
        return bool(table["state"] == "over")

    await until(over, timeout=120, every=0.2)
    await host.aclose()


def _check(where: str, expr: str, metrics: dict[str, set[str] | None]) -> list[str]:
    """What is wrong with one query: metrics nobody serves, labels none of its carries."""
    known = {**metrics, **SCRAPED_BY_PROMETHEUS}
    names = metric_names(expr)
    wrong = [f"{where}: no service serves {n} ({expr})" for n in sorted(names - set(known))]
    sampled = [known[n] for n in names if known.get(n) is not None]
    if names and len(sampled) == len(names):
        carried = set().union(*sampled) | TARGET_LABELS  # type: ignore[arg-type]
        wrong += [f"{where}: no metric of {expr} carries the label {label}"
                  for label in sorted(labels_used(expr) - carried)]
    return wrong


def test_every_dashboard_panel_reads_metrics_the_services_serve(
        metrics: dict[str, set[str] | None]) -> None:
    queries = panel_queries()
    assert len(queries) > 20
    wrong = [w for where, expr in queries for w in _check(where, expr, metrics)]
    assert not wrong, "\n".join(wrong)


def test_every_alert_reads_metrics_the_services_serve(
        metrics: dict[str, set[str] | None]) -> None:
    rules = alert_rules()
    assert rules
    wrong = [w for rule in rules for w in _check(rule["alert"], rule["expr"], metrics)]
    assert not wrong, "\n".join(wrong)


def _anchors(markdown: str) -> set[str]:
    """The anchors of a page's headings, as a Markdown renderer makes them."""
    return {re.sub(r"[^a-z0-9 -]", "", h.strip().lower()).replace(" ", "-")
            for h in re.findall(r"^#+ (.+)$", markdown, re.M)}


def test_every_alert_is_a_state_operators_md_describes_and_links_there() -> None:
    anchors = _anchors(OPERATORS)
    for rule in alert_rules():
        assert f"`{rule['alert']}`" in OPERATORS, rule["alert"]
        page, _, anchor = rule["annotations"]["runbook"].partition("#")
        assert page == "docs/operators.md" and anchor in anchors, rule["alert"]
    documented = set(re.findall(r"`(Spades[A-Za-z]+)`", OPERATORS))
    assert documented == {rule["alert"] for rule in alert_rules()}


def test_every_metric_the_services_serve_is_described_in_operators_md(
        metrics: dict[str, set[str] | None]) -> None:
    families = {re.sub(r"_(total|created|bucket|count|sum)$", "", n) for n in metrics
                if n.startswith("spades_")}
    missing = sorted(f for f in families if f"`{f}`" not in OPERATORS
                     and f"`{f}_total`" not in OPERATORS)
    assert not missing, missing


def test_prometheus_scrapes_every_service_under_its_name() -> None:
    config = yaml.safe_load((DEPLOY / "prometheus" / "prometheus.yml").read_text())
    assert {job["job_name"] for job in config["scrape_configs"]} == set(catalog.SERVICES)
    assert config["rule_files"] == ["alerts.yml"]


def test_dashboards_name_their_data_source_by_variable() -> None:
    for name, board in dashboards().items():
        assert board["uid"] and board["title"], name
        variables = {v["name"] for v in board["templating"]["list"]}
        assert "datasource" in variables, name


def test_compose_runs_prometheus_with_the_rules_and_grafana_with_the_dashboards() -> None:
    services = yaml.safe_load((DEPLOY / "compose.yaml").read_text())["services"]
    assert "./prometheus:/etc/prometheus:ro" in services["prometheus"]["volumes"]
    grafana = services["grafana"]["volumes"]
    assert "./grafana:/var/lib/grafana/dashboards:ro" in grafana
    provider = yaml.safe_load((DEPLOY / "grafana/provisioning/dashboards/spades.yml").read_text())
    assert provider["providers"][0]["options"]["path"] == "/var/lib/grafana/dashboards"
    source = yaml.safe_load((DEPLOY / "grafana/provisioning/datasources/prometheus.yml")
                            .read_text())["datasources"][0]
    assert source["type"] == "prometheus" and source["url"] == "http://prometheus:9090"
