"""Fair play in ranked: partners who share their hands, accounts that trade wins.

Pure, like the rest of the engine: records in, one verdict per pair out. How the
scores are built and why their thresholds are where they are: docs/fairplay.md.
"""

from engine.fairplay.games import Game, players_of, weigh_records
from engine.fairplay.pairs import Verdict, judge

__all__ = ["Game", "Verdict", "judge", "players_of", "weigh_records"]
