"""Reading ``/metrics`` in tests: one metric's value, by its labels."""

from __future__ import annotations

from collections.abc import Iterable

import httpx
from prometheus_client.parser import text_string_to_metric_families


def value(text: str, name: str, **labels: str) -> float:
    """The sum of the samples called ``name`` whose labels include ``labels`` (0 when
    there is none)."""
    return sum(sample.value for family in text_string_to_metric_families(text)
               for sample in family.samples
               if sample.name == name and labels.items() <= sample.labels.items())


async def total(urls: Iterable[str], name: str, **labels: str) -> float:
    """``value`` summed over the ``/metrics`` of several services (their base URLs)."""
    async with httpx.AsyncClient() as http:
        texts = [(await http.get(f"{url}/metrics")).text for url in urls]
    return sum(value(text, name, **labels) for text in texts)
