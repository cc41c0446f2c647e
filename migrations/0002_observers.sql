-- Observers of boards: every board mail is copied to them.
CREATE TABLE observers (
    game   TEXT NOT NULL,
    board  INTEGER NOT NULL,
    userid TEXT NOT NULL REFERENCES users(userid),
    PRIMARY KEY (game, board, userid),
    FOREIGN KEY (game, board) REFERENCES boards(game, board) ON DELETE CASCADE
);
