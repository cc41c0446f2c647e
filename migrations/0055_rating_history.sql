-- Each rating a player got when a rated board of theirs finished: the
-- points of their rating history (the web site draws it). Boards rated
-- before this migration have no point; the current rating in `ratings`
-- stays the one that counts.
CREATE TABLE rating_history (
    game     TEXT NOT NULL,
    userid   TEXT NOT NULL REFERENCES users(userid),
    board    INTEGER NOT NULL,
    rated_at TEXT NOT NULL,
    rating   INTEGER NOT NULL,
    PRIMARY KEY (game, userid, board)
);
CREATE INDEX rating_history_by_user ON rating_history(userid, rated_at);
