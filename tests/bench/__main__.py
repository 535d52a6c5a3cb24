"""`make bench`: run every ``tests/bench/*_bench.py`` module's ``main()`` in name order."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path


def run() -> int:
    here = Path(__file__).parent
    # The names come first; what follows them (``--games 25,100``) is the bench's own.
    names: list[str] = []
    for arg in sys.argv[1:]:
        if arg.startswith("-"):
            break
        names.append(arg)
    names = names or sorted(p.stem for p in here.glob("*_bench.py"))
    for name in names:
        print(f"\n== {name} ==", flush=True)
        importlib.import_module(f"tests.bench.{name}").main()
    return 0


if __name__ == "__main__":
    sys.exit(run())
