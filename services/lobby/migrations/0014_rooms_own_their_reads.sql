-- Each room reads only its own tables (docs/architecture.md, rule 15): what the live
-- list and the operators' search took by joining another room's rows, the owner now
-- holds itself.
--
-- A table says since when it plays its current game (set whenever it is seated for a
-- game), so the live list picks its newest games from game_tables alone and asks the
-- matches room only about those.
ALTER TABLE game_tables ADD COLUMN playing_since timestamptz;
UPDATE game_tables t SET playing_since = coalesce(
    (SELECT coalesce(m.started_at, m.created_at) FROM matches m WHERE m.game_id = t.game_id),
    t.created_at)
WHERE t.game_id IS NOT NULL;
CREATE INDEX game_tables_playing ON game_tables (playing_since) WHERE state = 'playing';

-- A game's row records the table it was played at and the names seated there when it
-- started (written by the GameStarted consumer), so the search reads games alone.
ALTER TABLE games ADD COLUMN table_id uuid, ADD COLUMN names text[];
UPDATE games g SET table_id = seated.table_id, names = seated.names FROM (
    SELECT DISTINCT ON (g2.game_id) g2.game_id, t.table_id,
           ARRAY(SELECT e.s->>'name' FROM jsonb_array_elements(coalesce(m.seats, t.seats))
                 WITH ORDINALITY AS e(s, n) ORDER BY e.n) AS names
    FROM games g2 LEFT JOIN matches m ON m.game_id = g2.game_id
    JOIN game_tables t ON t.game_id = g2.game_id OR t.table_id = m.table_id
    ORDER BY g2.game_id, (t.game_id = g2.game_id) DESC
) seated WHERE seated.game_id = g.game_id;
CREATE INDEX games_table ON games (table_id);
