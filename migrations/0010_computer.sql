-- The computer player's level on each board it plays (1 to 5).
CREATE TABLE computer_levels (
    game  TEXT NOT NULL,
    board INTEGER NOT NULL,
    level INTEGER NOT NULL CHECK (level BETWEEN 1 AND 5),
    PRIMARY KEY (game, board),
    FOREIGN KEY (game, board) REFERENCES boards(game, board) ON DELETE CASCADE
);
