"""Player names: how one is shown, and the form two names are compared in.

A name is shown NFKC-normalised with its white space collapsed (full-width
letters become plain ones). Two names are the same name when their skeletons
are equal: NFKC, case folded, and each character that the Unicode confusables
table (``confusable_homoglyphs``) says looks like a Latin one replaced by it, so
a Cyrillic or Greek A, a full-width letter or a different case cannot pass for a
registered name.
"""

from __future__ import annotations

import functools
import unicodedata

from confusable_homoglyphs import confusables


def shown(name: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", name).split())


@functools.lru_cache(maxsize=4096)
def _latin(ch: str) -> str:
    found = confusables.is_confusable(ch, preferred_aliases=["latin"], greedy=True)
    for entry in found or ():
        for glyph in entry["homoglyphs"]:
            if glyph["n"].startswith("LATIN"):
                return str(glyph["c"])
    return ch


def skeleton(name: str) -> str:
    folded = shown(name).casefold()
    return "".join(_latin(ch) for ch in folded).casefold()


__all__ = ["shown", "skeleton"]
