"""Real PostgreSQL and NATS for the whole test session.

Where they come from, in order: ``DATABASE_URL`` / ``NATS_URL`` when set; else
testcontainers when a Docker engine answers; else the embedded binaries from
the pinned pip packages, started once for the session under a temp folder.
Each run gets its own database, cloned from a migrated template, and its own
JetStream names (a per-run prefix), so concurrent runs never see each other.

A run of folders is shared by three xdist workers, each a session of its own with its
own servers (or its own names on the given ones); see ``pytest_xdist_auto_num_workers``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import tempfile
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import asyncpg
import nats
import pytest
from hypothesis import settings
from nats.aio.client import Client
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from services import catalog
from services.platform import dbadmin, eventstore, servers, tracing
from services.platform.connection import NatsClient
from services.platform.migrations import MigrationSet

# No property test has a deadline: speed is measured by the benches, and a deadline is a
# timing that a busy machine (three workers, their servers) misses now and then.
settings.register_profile("suite", deadline=None)
settings.load_profile("suite")

# A schema with the shared tables only, for contract tests of the store and the bus.
CONTRACT = MigrationSet("contract", (*eventstore.MIGRATIONS,
                                     ("consumer", catalog.CONSUMER_SQL)))


@dataclass(frozen=True)
class Servers:
    admin_url: str  # a database to issue CREATE DATABASE from
    nats_url: str
    source: str


def _from_env() -> Servers | None:
    db, nats_url = os.environ.get("DATABASE_URL"), os.environ.get("NATS_URL")
    if db and nats_url:
        return Servers(db, nats_url, "environment")
    return None


@contextlib.contextmanager
def _from_containers() -> Iterator[Servers]:
    from testcontainers.core.container import DockerContainer
    from testcontainers.core.waiting_utils import wait_for_logs

    try:
        from testcontainers.community.postgres import PostgresContainer
    except ImportError:
        from testcontainers.postgres import PostgresContainer

    with PostgresContainer("postgres:18", driver=None) as pg, \
            DockerContainer("nats:2.12").with_command("-js").with_exposed_ports(4222) as nc:
        wait_for_logs(nc, "Server is ready")
        url = f"nats://{nc.get_container_host_ip()}:{nc.get_exposed_port(4222)}"
        yield Servers(pg.get_connection_url(), url, "testcontainers")


def _scratch() -> str | None:
    """Where the embedded servers keep this run's data: in memory when /dev/shm has room.
    The run writes a few hundred cloned databases and throws them away whole; on a disk
    (one mounted with discard above all) writing and deleting them costs a minute."""
    shm = Path("/dev/shm")
    with contextlib.suppress(OSError):
        if os.access(shm, os.W_OK) and shutil.disk_usage(shm).free >= SCRATCH_ROOM:
            return str(shm)
    return None  # the temp folder


SCRATCH_ROOM = 8 << 30  # the workers' servers hold a few GB at most


@contextlib.contextmanager
def _embedded() -> Iterator[Servers]:
    root = Path(tempfile.mkdtemp(prefix="spades-test-", dir=_scratch()))
    os.environ.setdefault("SPADES_EPHEMERAL_PG", "1")
    both = servers.embedded(root)
    both.start()
    try:
        yield Servers(both.postgres.url, both.nats.url, "embedded")
    finally:
        both.stop()
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def test_servers() -> Iterator[Servers]:
    found = _from_env()
    if found:
        yield found
        return
    if servers.docker_answers():
        with _from_containers() as got:
            yield got
        return
    with _embedded() as got:
        yield got


@pytest.fixture(scope="session")
def nats_cluster() -> Iterator[servers.NatsCluster]:
    """Three nats-server nodes in one JetStream cluster, from the same pinned package
    as the single server, started the first time a test asks for them. Always the
    embedded binary: a test may kill or pause a node, so the cluster must be ours.
    A test that stops a node starts it again before it ends."""
    with servers.throwaway_cluster() as cluster:
        yield cluster


@pytest.fixture
def server_folder() -> Iterator[Path]:
    """A folder for a test's own servers, removed after it. Not pytest's temp folder:
    a concurrent pytest run on the machine closes that folder's permissions again and
    prunes its older runs, under a server that runs as another user."""
    root = Path(tempfile.mkdtemp(prefix="spades-own-", dir=_scratch()))
    yield root
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def postgres_pair(server_folder: Path) -> Iterator[servers.PostgresPair]:
    """A primary and its synchronous standby of the test's own, beside the session's
    single server: a test may kill either, delete its folder or promote the standby.
    Always the embedded binaries, so the machine a server runs on can be lost."""
    pair = servers.PostgresPair.in_folder(server_folder, *_two_ports())
    try:
        pair.start()
        yield pair
    finally:
        pair.stop()


def _two_ports() -> tuple[int, int]:
    base = servers.free_ports(2)
    return base, base + 1


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    """Tracing on in this process for the test, its spans kept by the SDK's own
    in-memory exporter (services/platform/tracing.py)."""
    exporter = InMemorySpanExporter()
    tracing.configure("test", "t1", "0", exporter=exporter)
    yield exporter
    tracing.shutdown()


@pytest.fixture(scope="session")
def run_id() -> str:
    return uuid.uuid4().hex[:10]


@pytest.fixture(scope="session")
async def nats_prefix(run_id: str, test_servers: Servers) -> AsyncIterator[str]:
    """This run's JetStream names; its streams are deleted when the run ends."""
    prefix = f"t{run_id}"
    yield prefix
    nc = await nats.connect(test_servers.nats_url)
    try:
        js = nc.jetstream()
        for info in await js.streams_info():
            if info.config.name and info.config.name.startswith(prefix):
                await js.delete_stream(info.config.name)
    finally:
        await nc.close()


@pytest.fixture(scope="session")
def nats_url(test_servers: Servers) -> str:
    return test_servers.nats_url


@pytest.fixture
async def nc(nats_url: str) -> AsyncIterator[Client]:
    """A NATS client of the test's own (the services' own kind, so that a ``BusClient``
    of it can store on JetStream as theirs do), drained at the end."""
    client = NatsClient()
    await client.connect(nats_url)
    yield client
    await client.drain()


@pytest.fixture(scope="session")
async def template_db(test_servers: Servers) -> str:
    return await dbadmin.ensure_template(test_servers.admin_url,
                                         [*catalog.all_migrations(), CONTRACT])


@pytest.fixture(scope="session")
async def make_database(test_servers: Servers, template_db: str,
                        run_id: str) -> AsyncIterator[Callable[[], Awaitable[str]]]:
    """Clone a fresh migrated database; all of them are dropped when the run ends."""
    made: list[str] = []

    async def make() -> str:
        name = f"spades_run_{run_id}_{len(made)}"
        made.append(name)
        # Our own server runs without fsync, so the checkpoint of a file copy is cheap.
        return await dbadmin.clone(test_servers.admin_url, template_db, name,
                                   file_copy=test_servers.source == "embedded")

    yield make
    if test_servers.source == "embedded":
        return  # the server and its data folder go away whole; a DROP costs a checkpoint each
    for name in made:
        await dbadmin.drop(test_servers.admin_url, name)


@pytest.fixture(scope="session")
async def database_url(make_database: Callable[[], Awaitable[str]]) -> str:
    """This run's own database."""
    return await make_database()


@pytest.fixture(scope="session")
async def contract_pool(database_url: str) -> AsyncIterator[asyncpg.Pool]:
    pool = await asyncpg.create_pool(database_url, min_size=2, max_size=40,
                                     server_settings={"search_path": "contract,public"})
    assert pool is not None
    yield pool
    await pool.close()


WORKERS = 3
TESTS = Path(__file__).parent


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto`` (pyproject's default): three workers for a run of folders (``make test``),
    none when files or tests are named. Most of the suite waits on servers, processes and
    timers: with two workers a whole run kept two cores 60% busy (121% of one core over
    its 11.6 minutes), so a third shares them without crowding the tests whose meaning is
    a timing. ``-n 0`` (or ``--pdb``) runs in one process."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return int(os.environ["PYTEST_XDIST_AUTO_NUM_WORKERS"])
    return 0 if any(".py" in arg for arg in config.args) else WORKERS


# The longest files of the shared groups, each a group of its own (a few minutes each,
# its platform or lobby started on its own worker): left in, the shared group they
# belong to would outlast the rest of the run.
ALONE = {"e2e/test_tournament_run.py", "services/lobby/test_declared_codes.py"}
BROWSER_GROUPS = 2


@pytest.hookimpl(tryfirst=True)  # before xdist's, which reads the groups into the ids
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Which tests a worker runs together (``--dist loadgroup``): a test file's tests, so
    module fixtures start once; the lobby's package, whose lobby process starts once; and
    the end-to-end tests on the shared platform, each group with the platform's
    processes started once on its worker: the files that drive a browser, dealt
    alternately into two groups (so two browsers at most run at once), and the others.
    An end-to-end file that starts servers of its own (the ranked queue's, a rolling
    restart's) is a group of its own, free to run beside them, as are the ``ALONE``."""
    on_platform = {item.path for item in items
                   if "platform" in getattr(item, "fixturenames", ())}
    browsers = sorted({item.path for item in items if _drives_a_browser(item)})
    for item in items:
        if not item.path.is_relative_to(TESTS):
            continue
        where = item.path.relative_to(TESTS)
        if where.as_posix() in ALONE:
            group = where.as_posix()
        elif where.parts[0] == "e2e":
            group = (f"e2e-browser-{browsers.index(item.path) % BROWSER_GROUPS}"
                     if item.path in browsers
                     else "e2e" if item.path in on_platform else where.as_posix())
        elif where.parts[:2] == ("services", "lobby"):
            group = "lobby"
        else:
            group = where.as_posix()
        item.add_marker(pytest.mark.xdist_group(group))
    # The workers take groups in this order: the longest first, so that the many short
    # files are what is left to share out at the end, not a long group started last.
    items.sort(key=lambda item: _first(item.get_closest_marker("xdist_group")))


def _first(group: pytest.Mark | None) -> int:
    """0: the shared platforms' groups and the lobby's; 1: other groups that start
    servers of their own; 2: the rest."""
    name = str(group.args[0]) if group is not None else ""
    if name.startswith("e2e-browser") or name in ("e2e", "lobby", *ALONE):
        return 0
    return 1 if name.startswith(("e2e/", "compat/", "services/test_dev")) else 2


def _drives_a_browser(item: pytest.Item) -> bool:
    module = getattr(item, "module", None)
    return any(getattr(value, "__module__", None) == "tests.e2e.browser"
               for value in vars(module).values()) if module else False


def pytest_report_header(config: pytest.Config) -> str:
    return f"servers: {'environment' if _from_env() else 'docker or embedded binaries'}"


# Event loop policy: the session loop from pytest-asyncio is shared by all fixtures above.
__all__ = ["Servers", "asyncio"]
