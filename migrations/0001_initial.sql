-- pbmchess schema, version 1. Times are RFC 3339 UTC text.

CREATE TABLE users (
    userid        TEXT PRIMARY KEY,          -- lower-case
    password_hash TEXT NOT NULL,             -- argon2id PHC string of the lower-cased password
    created_at    TEXT NOT NULL,
    signed_off_at TEXT                       -- set by signoff/delete; history is kept
);

CREATE TABLE user_addresses (
    userid   TEXT NOT NULL REFERENCES users(userid),
    position INTEGER NOT NULL,
    address  TEXT NOT NULL,                  -- lower-case
    PRIMARY KEY (userid, position)
);
CREATE INDEX user_addresses_by_address ON user_addresses(address);

-- A player's board drawing per game.
CREATE TABLE preferences (
    userid     TEXT NOT NULL REFERENCES users(userid),
    game       TEXT NOT NULL,
    board_size TEXT NOT NULL CHECK (board_size IN ('small', 'large')),
    PRIMARY KEY (userid, game)
);

CREATE TABLE boards (
    game           TEXT NOT NULL,
    board          INTEGER NOT NULL,
    options        TEXT NOT NULL DEFAULT '',  -- game options, space separated
    start_position TEXT NOT NULL,             -- position text at ply 0
    position       TEXT NOT NULL,             -- position text now (a cache of the replay)
    status         TEXT NOT NULL CHECK (status IN ('active', 'finished')),
    winner_seat    INTEGER,                   -- NULL with status finished: a tie
    ending         TEXT,                      -- why it ended, in words
    proposal       TEXT CHECK (proposal IN ('draw', 'undo')),
    proposal_seat  INTEGER,
    nag_days       INTEGER,
    forfeit_days   INTEGER,
    total_days     INTEGER,
    created_at     TEXT NOT NULL,
    last_action_at TEXT NOT NULL,
    last_nag_at    TEXT,
    finished_at    TEXT,
    PRIMARY KEY (game, board)
);

CREATE TABLE board_players (
    game   TEXT NOT NULL,
    board  INTEGER NOT NULL,
    seat   INTEGER NOT NULL,                  -- 0 moves first (White)
    userid TEXT NOT NULL REFERENCES users(userid),
    PRIMARY KEY (game, board, seat),
    FOREIGN KEY (game, board) REFERENCES boards(game, board) ON DELETE CASCADE
);
CREATE INDEX board_players_by_user ON board_players(userid);

CREATE TABLE plies (
    game      TEXT NOT NULL,
    board     INTEGER NOT NULL,
    ply       INTEGER NOT NULL,               -- from 1
    seat      INTEGER NOT NULL,
    notation  TEXT NOT NULL,                  -- canonical
    events    TEXT NOT NULL DEFAULT '',       -- automatic consequences, one per line
    comment   TEXT NOT NULL DEFAULT '',
    played_at TEXT NOT NULL,
    PRIMARY KEY (game, board, ply),
    FOREIGN KEY (game, board) REFERENCES boards(game, board) ON DELETE CASCADE
);

CREATE TABLE ratings (
    game   TEXT NOT NULL,
    userid TEXT NOT NULL REFERENCES users(userid),
    rating INTEGER NOT NULL,
    games  INTEGER NOT NULL,                  -- rated games finished
    PRIMARY KEY (game, userid)
);

-- Every inbound mail seen, so none is applied twice.
CREATE TABLE processed_mail (
    message_id   TEXT PRIMARY KEY,
    sender       TEXT,
    processed_at TEXT NOT NULL,
    outcome      TEXT NOT NULL
);
CREATE INDEX processed_mail_by_sender ON processed_mail(sender, processed_at);

-- Replies, written in the same transaction as the change that caused them.
CREATE TABLE outbox (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    recipient       TEXT NOT NULL,
    subject         TEXT NOT NULL,
    body            TEXT NOT NULL,
    in_reply_to     TEXT,
    created_at      TEXT NOT NULL,
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TEXT NOT NULL,
    sent_at         TEXT,
    failed_at       TEXT,                     -- given up: permanent rejection or too old
    last_error      TEXT
);
CREATE INDEX outbox_due ON outbox(next_attempt_at) WHERE sent_at IS NULL AND failed_at IS NULL;
