-- Issue #23: board mails go out as multipart/alternative (the text part
-- and an HTML part showing the same text in a monospace <pre>).
-- `<game> set <userid> <pw> plain` asks for the text part only, `html`
-- for both again. The choice is the player's for every game: it is about
-- their mail program, not about a game's drawing.
ALTER TABLE users ADD COLUMN plain_mail INTEGER NOT NULL DEFAULT 0;
-- Whether this outbox mail goes out with an HTML part; fixed when the mail
-- is queued, with the rest of it.
ALTER TABLE outbox ADD COLUMN html INTEGER NOT NULL DEFAULT 0;
