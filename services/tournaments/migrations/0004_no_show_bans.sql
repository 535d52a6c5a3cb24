-- Players who stayed away from a tournament match may not register for another for a
-- while: 24 hours after the first no-show, doubling with each, at most 30 days. Kept
-- across tournaments, written with the no-show's result in the same transaction.
CREATE TABLE no_show_bans (
    player_id     text PRIMARY KEY,
    no_shows      integer NOT NULL,
    banned_until  timestamptz NOT NULL
);
