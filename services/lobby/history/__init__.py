"""A player's own games: every finished game they sat in, with its score sheet.

A projection of ``GameEnded`` (its own durable consumer and table): at a game's end
the lobby reads the game's log from its worker once and keeps what a player's list
shows, so a page of games is one query. Rating changes and tournament rounds stay
with the services that own them and are asked for a page at a time.
"""
