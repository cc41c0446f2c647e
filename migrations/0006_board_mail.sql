-- A ply played from the player's queue is listed with "(Auto)".
ALTER TABLE plies ADD COLUMN auto INTEGER NOT NULL DEFAULT 0;

-- A player may have the boards of a game drawn from Black's side.
ALTER TABLE preferences ADD COLUMN from_black INTEGER NOT NULL DEFAULT 0;
