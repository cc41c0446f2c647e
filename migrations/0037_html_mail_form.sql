-- Board mails go out as multipart/alternative (the text part
-- and an HTML part showing the same text in a monospace <pre>).
-- `<game> set <userid> <pw> plain` asks for the text part only (a row
-- here), `html` for both again (no row). The choice is the player's for
-- every game: it is about their mail program, not about a game's drawing.
CREATE TABLE plain_mail_users (
    userid TEXT PRIMARY KEY REFERENCES users(userid)
);
-- Whether this outbox mail goes out with an HTML part; fixed when the mail
-- is queued, with the rest of it.
ALTER TABLE outbox ADD COLUMN html INTEGER NOT NULL DEFAULT 0;
