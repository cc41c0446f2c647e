-- Whether a player's board mails show the board as a picture in their
-- HTML part (`set ... picture|nopicture`, for every game). New accounts
-- start with the picture; the accounts made before keep the mail they
-- had, without it.
ALTER TABLE users ADD COLUMN picture INTEGER NOT NULL DEFAULT 1;
UPDATE users SET picture = 0;
