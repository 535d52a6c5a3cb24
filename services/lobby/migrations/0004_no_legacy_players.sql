-- The legacy name registry of `POST /api/v1/players` (names with no sign-in and no
-- token) is gone: players are the accounts of `/v1/auth/*`.
DROP TABLE players;
