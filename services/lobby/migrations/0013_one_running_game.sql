-- One running game at a time for a person in a seat (docs/protocol.md): the game each
-- person sits in until it ends. Written in the transaction that seats a match's table
-- (or, for a game no match opened, by the GameStarted consumer), removed by the
-- GameEnded consumer, a start that failed, or a check that finds the game ended in its
-- own store. The primary key is the rule: two starts racing for one person cannot both
-- seat them. table_id is '' for a game no table opened.
CREATE TABLE running_seats (
    player_id  text PRIMARY KEY,
    game_id    text NOT NULL,
    table_id   text NOT NULL,
    seat       smallint NOT NULL,
    since      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX running_seats_game ON running_seats (game_id);

-- The games running now, one a person: the newest, where two already ran.
INSERT INTO running_seats (player_id, game_id, table_id, seat, since)
SELECT DISTINCT ON (player_id) player_id, game_id, table_id, seat, since FROM (
    SELECT u.p AS player_id, g.game_id, coalesce(m.table_id::text, '') AS table_id,
           (u.n - 1)::smallint AS seat, g.started_at AS since
    FROM games g LEFT JOIN matches m ON m.game_id = g.game_id
    CROSS JOIN LATERAL unnest(g.players) WITH ORDINALITY AS u(p, n)
    WHERE g.ended_at IS NULL AND g.started_at IS NOT NULL AND u.p NOT LIKE 'bot:%'
    UNION ALL
    SELECT s.seat->>'player_id', t.game_id, t.table_id::text, (s.n - 1)::smallint,
           t.updated_at
    FROM game_tables t CROSS JOIN LATERAL jsonb_array_elements(t.seats)
         WITH ORDINALITY AS s(seat, n)
    WHERE t.state = 'playing' AND t.game_id IS NOT NULL
      AND s.seat->>'player_id' IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM games g WHERE g.game_id = t.game_id
                      AND g.ended_at IS NOT NULL)
) running ORDER BY player_id, since DESC;
