-- Reply to play: each board mail to a player carries a
-- Message-ID <t.TOKEN@domain>; a reply naming it is that player's command
-- on that board. Only a SHA-256 of the token is kept here.
CREATE TABLE reply_tokens (
    token_hash TEXT PRIMARY KEY,              -- hex SHA-256 of the token
    game       TEXT NOT NULL,
    board      INTEGER NOT NULL,
    userid     TEXT NOT NULL REFERENCES users(userid),
    ply        INTEGER NOT NULL,              -- plies played when the mail was sent
    created_at TEXT NOT NULL,
    expired_at TEXT,                          -- set when the game ends
    FOREIGN KEY (game, board) REFERENCES boards(game, board) ON DELETE CASCADE
);
CREATE INDEX reply_tokens_by_board ON reply_tokens(game, board);

-- The Message-ID an outbox mail is sent with, when it is not the one
-- derived from the row (a board mail carrying a reply token).
ALTER TABLE outbox ADD COLUMN message_id TEXT;
