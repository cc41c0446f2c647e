-- Outbox claims a sending process holds. A row claimed for
-- sending has claimed = 1 until what became of it is recorded. A sender
-- holds the send lock (an advisory lock on a file beside the database)
-- while it sends, so a claimed row that the next holder of the lock finds
-- was left by a sender that died: it is due again at once, instead of
-- after the claim's lease.
ALTER TABLE outbox ADD COLUMN claimed INTEGER NOT NULL DEFAULT 0;
CREATE INDEX outbox_claimed ON outbox(id) WHERE claimed = 1;
