-- Wrong passwords per userid (existing or not: a lockout must not tell
-- whether a userid exists), and commands counted per clock hour.
CREATE TABLE password_failures (
    userid          TEXT PRIMARY KEY,         -- lower-case, as typed
    failures        INTEGER NOT NULL,
    first_failed_at TEXT NOT NULL,            -- start of the counting window
    locked_until    TEXT
);

CREATE TABLE command_counts (
    scope TEXT NOT NULL CHECK (scope IN ('address', 'account', 'server')),
    key   TEXT NOT NULL,                      -- the address, the userid, or ''
    hour  TEXT NOT NULL,                      -- start of the clock hour (UTC)
    count INTEGER NOT NULL,
    PRIMARY KEY (scope, key, hour)
);
