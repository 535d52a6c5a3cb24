"""What both servers' processes share: ports, errors, stopping, dying with the caller."""

from __future__ import annotations

import contextlib
import random
import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

_EPHEMERAL = Path("/proc/sys/net/ipv4/ip_local_port_range")
_LOWEST = 10000  # above every well-known server's port on a developer's machine


class ServerError(RuntimeError):
    """A server could not be started; the message is one line naming why."""


def free_port(host: str = "127.0.0.1") -> int:
    """A port free now, below the kernel's ephemeral range (``free_ports``)."""
    return free_ports(1, host)


def free_ports(width: int, host: str = "127.0.0.1") -> int:
    """The first of ``width`` consecutive ports free now, below the kernel's ephemeral
    range. A port inside that range (what binding port 0 gives) that is free now may be
    taken a moment later, before the server binds it, as the local end of some outgoing
    connection: with an initdb between choosing and binding, on a busy machine, that
    happened."""
    ceiling = int(_EPHEMERAL.read_text().split()[0]) if _EPHEMERAL.exists() else 32768
    pick = random.SystemRandom()
    for _ in range(100):
        base = pick.randrange(_LOWEST, ceiling - width)
        if all(_bindable(port, host) for port in range(base, base + width)):
            return base
    raise ServerError(f"no {width} free consecutive ports below {ceiling}")


def _bindable(port: int, host: str) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind((host, port))
        except OSError:
            return False
        return True


def port_in_use(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.2)
        return sock.connect_ex((host, port)) == 0


def die_with_parent(sig: int) -> Callable[[], None] | None:
    """A pre-exec hook asking Linux to signal the child when its parent dies.

    The servers run in their own session (a terminal's Ctrl-C must not reach
    them before the services have drained), so this is what keeps them from
    outliving a parent that was killed outright.
    """
    if not sys.platform.startswith("linux"):
        return None

    import ctypes
    import ctypes.util

    prctl = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True).prctl

    def hook() -> None:
        prctl(1, sig)  # PR_SET_PDEATHSIG

    return hook


def has_exited(process: subprocess.Popen[bytes] | None) -> bool:
    """A started server's process is gone; polling reaps it, so no zombie keeps its pid."""
    return process is not None and process.poll() is not None


def stop_process(process: subprocess.Popen[bytes] | None, sig: int, timeout: float = 15.0) -> None:
    if process is None or process.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        process.send_signal(sig)
    try:
        process.wait(timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()

