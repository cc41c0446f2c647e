-- Whether and how many challenges a player takes, per game.
CREATE TABLE challenge_settings (
    userid      TEXT NOT NULL REFERENCES users(userid),
    game        TEXT NOT NULL,
    accepts     INTEGER NOT NULL DEFAULT 1,
    board_limit INTEGER,                      -- NULL: no limit
    PRIMARY KEY (userid, game)
);

-- Who wants the result of which boards: board 0 means every board of the game.
CREATE TABLE result_notifications (
    game   TEXT NOT NULL,
    board  INTEGER NOT NULL,
    userid TEXT NOT NULL REFERENCES users(userid),
    PRIMARY KEY (game, board, userid)
);

-- Vacations: no reminders or forfeits, and the time does not count.
CREATE TABLE vacations (
    userid    TEXT NOT NULL REFERENCES users(userid),
    starts_at TEXT NOT NULL,
    ends_at   TEXT NOT NULL
);
CREATE INDEX vacations_by_user ON vacations(userid, starts_at);
