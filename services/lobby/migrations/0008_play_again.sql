-- A table plays one game after another: ``game_id`` is its current (or last) game,
-- and each match keeps the seats and rules it was started with, so a finished game
-- is still found (and named) after its table moved on to the next one.
-- ``play_again``: after a game, once someone asked for another: the player ids who
-- agreed (bots always do), kept until that next game ends; NULL when nobody asked.
ALTER TABLE game_tables ADD COLUMN play_again jsonb;
ALTER TABLE matches ADD COLUMN seats jsonb, ADD COLUMN rules jsonb;
