"""The house's rooms stay small enough to hold in mind (docs/architecture.md, rule 15).

Over the project's source (engine, schemas, services, spades_client): no folder holds
more than twenty modules of its own, nor more than an eighth of all source lines in
its own modules; no module passes 400 lines, no class 200. A room that grows past one
of these becomes sub-packages by concern, as the lobby, the schemas and the platform's
event store did.

In the services and the engine (migrations aside) a class stays within 170 lines and
a function within 60, so that no class sits just under the cap: a class that grows
near it is split by concern, not trimmed to fit. ``STILL_LONG`` lists those not split
yet, with their length when listed; one that grows fails, one split must leave it.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ("engine", "schemas", "services", "spades_client")
MODULES_PER_FOLDER = 20
LINES_PER_MODULE = 400
LINES_PER_CLASS = 200
CLASS_LINES = 170  # in services/ and engine/
FUNCTION_LINES = 60
STILL_LONG: dict[tuple[str, str], int] = {}


def modules() -> list[Path]:
    return sorted(p for top in SOURCE for p in (ROOT / top).rglob("*.py"))


def lines(path: Path) -> int:
    return len(path.read_text().splitlines())


def test_no_folder_holds_more_than_twenty_modules_or_an_eighth_of_the_lines() -> None:
    everything = modules()
    total = sum(lines(p) for p in everything)
    folders: dict[Path, list[Path]] = defaultdict(list)
    for p in everything:
        folders[p.parent].append(p)
    crowded = {str(f.relative_to(ROOT)): len(ps) for f, ps in folders.items()
               if len(ps) > MODULES_PER_FOLDER}
    heavy = {str(f.relative_to(ROOT)): sum(map(lines, ps)) for f, ps in folders.items()
             if sum(map(lines, ps)) > total / 8}
    assert not crowded, f"more than {MODULES_PER_FOLDER} modules: {crowded}"
    assert not heavy, f"more than an eighth of {total} lines: {heavy}"


def test_no_module_passes_400_lines_and_no_class_200() -> None:
    long_modules, long_classes = [], []
    for p in modules():
        name = str(p.relative_to(ROOT))
        if lines(p) > LINES_PER_MODULE:
            long_modules.append((name, lines(p)))
        for node in ast.walk(ast.parse(p.read_text(), name)):
            if isinstance(node, ast.ClassDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > LINES_PER_CLASS:
                    long_classes.append((name, node.name, length))
    assert not long_modules, long_modules
    assert not long_classes, long_classes


def test_classes_and_functions_of_the_services_and_engine_stay_well_under_the_caps() -> None:
    over = {}
    for top in ("services", "engine"):
        for p in sorted((ROOT / top).rglob("*.py")):
            name = str(p.relative_to(ROOT))
            if "/migrations/" in name:
                continue
            for node in ast.walk(ast.parse(p.read_text(), name)):
                if not isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                    continue
                cap = CLASS_LINES if isinstance(node, ast.ClassDef) else FUNCTION_LINES
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > cap:
                    over[(name, node.name)] = length
    grown = {k: v for k, v in over.items() if v > STILL_LONG.get(k, 0)}
    split = sorted(set(STILL_LONG) - set(over))
    assert not grown, f"over {CLASS_LINES} lines a class, {FUNCTION_LINES} a function: {grown}"
    assert not split, f"split now: take them out of STILL_LONG: {split}"
