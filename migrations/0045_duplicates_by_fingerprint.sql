-- A mail is a duplicate only when its Message-ID and its fingerprint (its
-- sender, subject and text: `mail::Envelope::fingerprint`) were both seen:
-- anyone may put a player's next Message-ID on a mail of their own. Rows
-- carried over get an empty fingerprint, which no mail has.
CREATE TABLE processed_mail_seen (
    message_id   TEXT NOT NULL,
    fingerprint  TEXT NOT NULL,
    sender       TEXT,
    processed_at TEXT NOT NULL,
    outcome      TEXT NOT NULL,
    PRIMARY KEY (message_id, fingerprint)
);
INSERT INTO processed_mail_seen (message_id, fingerprint, sender, processed_at, outcome)
    SELECT message_id, '', sender, processed_at, outcome FROM processed_mail;
DROP TABLE processed_mail;
ALTER TABLE processed_mail_seen RENAME TO processed_mail;
CREATE INDEX processed_mail_by_sender ON processed_mail(sender, processed_at);
CREATE INDEX processed_mail_by_time ON processed_mail(processed_at);
