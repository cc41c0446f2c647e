-- `set <userid> <pw> noreply`: this player's board mails of this game carry
-- no reply token (replies are refused; the Subject command works).
ALTER TABLE preferences ADD COLUMN no_reply INTEGER NOT NULL DEFAULT 0;
