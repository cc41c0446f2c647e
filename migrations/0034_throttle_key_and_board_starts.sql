-- A key for the throttle's keyed hashes (the wrong
-- passwords of a userid that does not exist are counted under a hash of
-- it, so a password typed as the userid is never stored), and when an
-- account was last told of a lockout (at most one notice a day).
CREATE TABLE server_secrets (
    name  TEXT PRIMARY KEY,
    value BLOB NOT NULL
);
INSERT INTO server_secrets (name, value) VALUES ('throttle', randomblob(32));

CREATE TABLE lockout_notices (
    userid  TEXT PRIMARY KEY,
    sent_at TEXT NOT NULL
);

-- Boards started by mail per player, written so that no rollback undoes
-- them (a mail whose answers are too large rolls its boards back, but its
-- players were put on them all the same): boards per player per day.
CREATE TABLE board_starts (
    userid     TEXT NOT NULL,
    started_at TEXT NOT NULL
);
CREATE INDEX board_starts_by_userid ON board_starts (userid, started_at);
