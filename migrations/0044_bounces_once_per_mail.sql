-- The key of the Message-IDs made from an outbox row (`mail::outgoing_message_id`):
-- drawn at random here and never shown, so no one can work out the
-- Message-ID of a mail sent to someone else and quote it in a forged bounce.
INSERT INTO server_secrets (name, value) VALUES ('message_id', randomblob(32));

-- Each hard bounce, once per original mail (outbox row) and address: a
-- bounce quoted again counts for nothing.
CREATE TABLE mail_bounces (
    address    TEXT NOT NULL,                 -- ASCII lower case
    outbox_id  INTEGER NOT NULL,
    bounced_at TEXT NOT NULL,
    PRIMARY KEY (address, outbox_id)
);

-- An address whose stop ended (mail came from it): the next mail that goes
-- to it says since when it was sent nothing.
CREATE TABLE bounce_notices (
    address    TEXT PRIMARY KEY,              -- ASCII lower case
    bounces    INTEGER NOT NULL,
    stopped_at TEXT NOT NULL
);

-- The outbox's last row when mail last came from the address: a bounce of
-- a mail queued before then counts for nothing.
ALTER TABLE address_bounces ADD COLUMN read_after_outbox_id INTEGER NOT NULL DEFAULT 0;
