-- The last board number given out per game, so that a number is never
-- given twice, even when its board was deleted (a game resigned before
-- both players moved): an old mail can then never land on a new board.
CREATE TABLE board_counters (
    game       TEXT PRIMARY KEY,
    last_board INTEGER NOT NULL
);
INSERT INTO board_counters (game, last_board)
    SELECT game, MAX(board) FROM boards GROUP BY game;
