-- Moves waiting to be played: a queued move (played automatically when its
-- player's turn comes) and a submitted move (played by confirm). At most one
-- of each kind per player and board; a newer one replaces the older.
CREATE TABLE pending_moves (
    game       TEXT NOT NULL,
    board      INTEGER NOT NULL,
    seat       INTEGER NOT NULL,
    kind       TEXT NOT NULL CHECK (kind IN ('queue', 'submit')),
    notation   TEXT NOT NULL,                 -- as typed (queue) or canonical (submit)
    guard_ply  INTEGER,                       -- the #N guard, when given
    at_ply     INTEGER NOT NULL,              -- plies played when it was stored
    position   TEXT NOT NULL,                 -- the position text then
    comment    TEXT NOT NULL DEFAULT '',      -- the player's comment, password masked
    created_at TEXT NOT NULL,
    PRIMARY KEY (game, board, seat, kind),
    FOREIGN KEY (game, board) REFERENCES boards(game, board) ON DELETE CASCADE
);
