"""The published sample records give exactly the published results."""

import json
from pathlib import Path

import pytest

from engine.records import judge_line

FORMATS = Path(__file__).parent / "data"
RECORDS = (FORMATS / "sample-records.jsonl").read_bytes().splitlines()
RESULTS = [json.loads(x) for x in (FORMATS / "sample-results.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("line,expected", list(zip(RECORDS, RESULTS, strict=True)),
                         ids=[r["id"] for r in RESULTS])
def test_sample_record_gives_published_result(line: bytes, expected: dict) -> None:
    got = judge_line(line)
    if expected["ok"]:
        assert got == expected
    else:
        assert got["ok"] is False
        assert got["error"]["code"] == expected["error"]["code"]
        assert got["error"]["play_index"] == expected["error"]["play_index"]
        assert got["error"]["seat"] == expected["error"]["seat"]
