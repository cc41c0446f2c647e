-- What `pbmchess status` shows that no other table keeps: when the last
-- pass of `serve`/`poll` ended, and the inbox's last error.
CREATE TABLE service_state (
    key   TEXT PRIMARY KEY,                   -- 'last_pass', 'inbox_error'
    value TEXT NOT NULL,                      -- '' for last_pass; the error
    at    TEXT NOT NULL
);

-- Hard bounces (DSNs with Action: failed for a mail the server sent) per
-- recipient address, in a row; at [accounts] bounces_before_stop the
-- address is stopped: its mail is given up unsent until mail from it
-- arrives (which deletes the row).
CREATE TABLE address_bounces (
    address    TEXT PRIMARY KEY,              -- lower case
    bounces    INTEGER NOT NULL,
    last_at    TEXT NOT NULL,
    stopped_at TEXT
);
