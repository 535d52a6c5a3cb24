"""The error-code tables of docs/protocol.md, generated from the registry.

``python -m schemas.errors.docs`` rewrites the part of docs/protocol.md between the two
markers below (and nothing else); a test fails when the file and the registry differ,
so the tables cannot drift from what the services answer.
"""

from __future__ import annotations

import sys
from pathlib import Path

from schemas import ws
from schemas.errors import (
    BAD_SEED,
    LOBBY,
    PLATFORM,
    RETRY_AFTER,
    RULE_CODES,
    RULES,
    TOURNAMENT,
    UNTIL,
    ErrorCode,
)

BEGIN = ("<!-- error codes: generated from schemas/errors/__init__.py and schemas/ws.py by "
         "`python -m schemas.errors.docs`; edit those, not this -->")
END = "<!-- end of the generated error codes -->"
DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"

_FIELDS = {RETRY_AFTER: "HTTP: `Retry-After` says when to try again",
           UNTIL: "an `error` frame carries `until` (ms)"}


def _row(e: ErrorCode) -> str:
    notes = "; ".join(_FIELDS[f] for f in e.fields)
    meaning = f"{e.meaning} ({notes})" if notes else e.meaning
    return f"| `{e.code}` | {e.status} | {meaning.replace('|', '/')} |"


def _table(entries: list[ErrorCode]) -> list[str]:
    rows = sorted({e.code: e for e in entries}.values(), key=lambda e: (e.status, e.code))
    return ["| code | HTTP | meaning |", "| --- | --- | --- |", *map(_row, rows)]


def _frame_codes(codes: tuple[str, ...]) -> str:
    """A frame's codes, the rules' whole list said in words rather than spelled out."""
    rules = set(RULE_CODES) <= set(codes)
    named = [f"`{c}`" for c in dict.fromkeys(codes) if not (rules and c in RULE_CODES)]
    return ", ".join([*named, *(["the rules' codes"] if rules else [])]) or "-"


def section() -> str:
    frames = [f"| `{tag}` | {_frame_codes(codes)} |" for tag, codes in ws.FRAME_ERRORS.items()]
    lines = [
        BEGIN, "",
        "Every error answers `{\"code\": ..., \"message\": ...}` over HTTP (with the status "
        "below) and an `error` frame (`code`, `message`, `command_id`, `until`) over the "
        "socket: branch on the stable `code`, show the `message`. Each route lists the "
        "codes it answers in the OpenAPI document (`/schema`); each frame's are below.",
        "", "The lobby's and the platform's:", "", *_table([*PLATFORM, *LOBBY]),
        "", "The tournament service's (`/v1/tournaments`, `watch_tournament`):", "",
        *_table(TOURNAMENT),
        "", "The rules' (`engine/errors.py`), in answer to game commands; over HTTP only "
        "where a route sends a command for the caller (leaving a seat):", "",
        *_table([*RULES, BAD_SEED]),
        "", "Any frame may be answered with " + ", ".join(f"`{c}`" for c in ws.EVERY_FRAME)
        + "; besides those, each frame type with:", "",
        "| frame | codes |", "| --- | --- |", *frames, "", END]
    return "\n".join(lines)


def rewrite(text: str) -> str:
    """``text`` with the generated section replaced by the registry's current one."""
    start, end = text.index(BEGIN), text.index(END) + len(END)
    return text[:start] + section() + text[end:]


def main(argv: list[str]) -> int:
    text = DOC.read_text()
    new = rewrite(text)
    if "--check" in argv:
        return 0 if new == text else 1
    DOC.write_text(new)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
