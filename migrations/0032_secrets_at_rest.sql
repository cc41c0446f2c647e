-- Secrets at rest. An outbox mail keeps the secrets it carries
-- (a reply token in its Message-ID, confirmation codes in its Subject and
-- body) in clear only until it is sent or given up: then they are blanked
-- and the token in its Message-ID is replaced by its hash, so that nothing
-- in the database or a backup can be replayed. `secrets`: the words to
-- blank, separated by spaces; NULL once done (or when there are none).
ALTER TABLE outbox ADD COLUMN secrets TEXT;

-- Rows sent before this migration: their tokens and codes go now.
UPDATE outbox SET message_id = NULL
    WHERE message_id IS NOT NULL AND (sent_at IS NOT NULL OR failed_at IS NOT NULL);
UPDATE outbox SET subject = 'confirm address (code removed)',
                  body = '(removed after sending: it held a confirmation code)'
    WHERE (sent_at IS NOT NULL OR failed_at IS NOT NULL)
      AND (subject LIKE '%confirm address %' OR body LIKE '%confirm address %');

-- A player's tokens are all ended at once (noreply, a new password or
-- address): found by userid.
CREATE INDEX reply_tokens_by_user ON reply_tokens(userid) WHERE expired_at IS NULL;

-- Notices sent at most once a day (a reply refused as unauthenticated):
-- the key and when it was last sent.
CREATE TABLE notices_sent (
    key     TEXT PRIMARY KEY,
    sent_at TEXT NOT NULL
);
