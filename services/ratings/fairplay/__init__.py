"""Fair play online: every rated game's pairs scored again by ``engine.fairplay`` off
the game's path, cases for operators to review, and what a decision does (ratings
rebuilt without the games, a bar from ranked). docs/fairplay.md."""
