-- A turn mail shows the whole score (`<game> set <userid> <pw> moves all`,
-- the default) or only the last five moves (`moves last`, 1 here). The
-- choice is the player's for every game.
ALTER TABLE users ADD COLUMN last_moves_only INTEGER NOT NULL DEFAULT 0;
