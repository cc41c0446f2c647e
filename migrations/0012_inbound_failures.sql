-- Inbound mail that failed inside the server (a database or template
-- failure, never the player's mistake), one row per Message-ID. While
-- quarantined_at is NULL the mail is still in the inbox and tried again on
-- the next pass; after [limits] failures_before_quarantine tries it is
-- quarantined: its bytes are kept here, the inbox moves it to its
-- quarantine folder, and `pbmchess admin inbox retry ID` replays it.
CREATE TABLE inbound_failures (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    message_id      TEXT NOT NULL UNIQUE,
    sender          TEXT,
    subject         TEXT NOT NULL DEFAULT '',   -- passwords masked
    attempts        INTEGER NOT NULL,
    first_failed_at TEXT NOT NULL,
    last_failed_at  TEXT NOT NULL,
    last_error      TEXT NOT NULL,
    quarantined_at  TEXT,
    raw             BLOB                        -- the message, once quarantined (NULL: unreadable)
);
