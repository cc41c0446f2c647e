-- The waiting list of `seek`: players looking for an opponent, per game.
CREATE TABLE seeks (
    game       TEXT NOT NULL,
    userid     TEXT NOT NULL REFERENCES users(userid),
    note       TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL,
    PRIMARY KEY (game, userid)
);
