-- Inbound mail being handled: a row is written and committed
-- before a mail, or a group of mails, is handed to the server, and deleted
-- in the transaction that commits what the mail did (or counts its
-- failure). A row still there when the mail is taken again means the
-- process died while handling it. With alone = 1 the mail was handled by
-- itself, so the death counts as one of its failures (inbound_failures),
-- and after [limits] failures_before_quarantine it is quarantined before it
-- runs again. With alone = 0 it was one of a group, and which mail killed
-- the process is not known: the mails of that group are then handled one
-- at a time, each alone, and no failure is counted for the group's death.
CREATE TABLE inbound_attempts (
    mail_key   TEXT PRIMARY KEY,   -- SHA-256 of the mail's bytes, hex
    alone      INTEGER NOT NULL,
    started_at TEXT NOT NULL
);
