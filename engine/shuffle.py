"""Provably fair deals: the shuffle is a public, deterministic function of a seed.

The algorithm, so that anyone can recompute a deal from the revealed seed:

1. The game seed is 32 bytes, written as 64 hex digits. Its commitment,
   ``sha256(seed)`` in hex, is public from the first event; each hand's
   commitment ``sha256(hand_seed)`` is public from that hand's deal; the seed
   itself is revealed when the game ends.
2. ``hand_seed(k) = HMAC-SHA256(key=seed, msg=b"spades/hand/" + str(k))`` for
   hand ``k`` = 1, 2, ...; the first dealer uses ``msg=b"spades/dealer"``.
3. A keyed stream: block ``i`` (from 0) is ``HMAC-SHA256(key, i as 8 bytes
   big-endian)``; each block gives four unsigned 64-bit big-endian numbers.
4. ``uniform(n)`` takes the next number ``u`` and rejects it while
   ``u >= 2**64 - 2**64 % n``; the answer is ``u % n``.
5. The deck starts in card-id order (2S..AS, 2H..AH, 2D..AD, 2C..AC, BJ, LJ,
   less the cards the variant removes). Fisher-Yates: for ``i`` from 51 down to
   1, ``j = uniform(i + 1)``, swap positions ``i`` and ``j``.
6. The dealer deals one card at a time from the top: card ``p`` goes to seat
   ``(dealer + 1 + p) % 4``. The first dealer is ``uniform(4)`` of the dealer
   stream.

``tests/engine/test_shuffle.py`` holds a test vector.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterator, Sequence

_TWO64 = 1 << 64


def commitment(seed: bytes) -> str:
    return hashlib.sha256(seed).hexdigest()


def hand_seed(seed: bytes, hand_no: int) -> bytes:
    return hmac.new(seed, b"spades/hand/" + str(hand_no).encode(), hashlib.sha256).digest()


def _numbers(key: bytes) -> Iterator[int]:
    i = 0
    while True:
        block = hmac.new(key, i.to_bytes(8, "big"), hashlib.sha256).digest()
        for k in range(0, 32, 8):
            yield int.from_bytes(block[k:k + 8], "big")
        i += 1


def _uniform(numbers: Iterator[int], n: int) -> int:
    limit = _TWO64 - _TWO64 % n
    while True:
        u = next(numbers)
        if u < limit:
            return u % n


def shuffle(key: bytes, cards: Sequence[int]) -> list[int]:
    out = list(cards)
    numbers = _numbers(key)
    for i in range(len(out) - 1, 0, -1):
        j = _uniform(numbers, i + 1)
        out[i], out[j] = out[j], out[i]
    return out


def first_dealer(seed: bytes) -> int:
    key = hmac.new(seed, b"spades/dealer", hashlib.sha256).digest()
    return _uniform(_numbers(key), 4)


def deal(seed: bytes, hand_no: int, dealer: int, cards: Sequence[int]) -> list[list[int]]:
    """Each seat's cards for hand ``hand_no``, in the order they were dealt."""
    hands: list[list[int]] = [[], [], [], []]
    for p, c in enumerate(shuffle(hand_seed(seed, hand_no), cards)):
        hands[(dealer + 1 + p) % 4].append(c)
    return hands
