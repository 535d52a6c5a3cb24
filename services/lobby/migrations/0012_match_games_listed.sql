-- A ranked or tournament match's games were recorded as private (their table row is
-- private, with no room code) and so hidden from everyone but their players, while
-- their ratings showed them to anyone. Only a person's private table hides its games.
UPDATE player_games SET private = false WHERE origin <> 'table';
