-- The players' ratings in the game when a tournament board was made (the
-- game's start), for its PGN's WhiteElo and BlackElo. Rows from before
-- these columns (NULL) have no Elo tags.
ALTER TABLE tournament_games ADD COLUMN white_rating INTEGER;
ALTER TABLE tournament_games ADD COLUMN black_rating INTEGER;
