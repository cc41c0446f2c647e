-- Conditional moves: each player's tree of lines on a board,
-- one row per line. Every line of a tree starts at the same ply: the one
-- after `from_ply` plies. `plies` holds the line's plies in canonical
-- notation, one per text line (a ply may hold a space: `reveal c4`);
-- `mine` one character per ply, '1' where the tree's owner plays it and
-- '0' where the opponent does. A ply played from a tree is stored in
-- `plies` with auto = 2 (1 is a queued move's).
CREATE TABLE conditional_lines (
    game      TEXT NOT NULL,
    board     INTEGER NOT NULL,
    seat      INTEGER NOT NULL,
    line      INTEGER NOT NULL,
    from_ply  INTEGER NOT NULL,
    plies     TEXT NOT NULL,
    mine      TEXT NOT NULL,
    PRIMARY KEY (game, board, seat, line),
    FOREIGN KEY (game, board) REFERENCES boards(game, board) ON DELETE CASCADE
);
