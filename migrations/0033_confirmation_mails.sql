-- One confirmation mail a day per address, whatever asks for it (signup,
-- change address). The last confirmation mail sent to each
-- address: for whom, the SHA-256 of its code (so that the same account
-- asking again within the day keeps the code already sent), until when
-- the code is good, and when the mail went.
CREATE TABLE confirmation_mails (
    address         TEXT PRIMARY KEY,   -- lower-case
    userid          TEXT NOT NULL,
    code_hash       TEXT NOT NULL,
    code_expires_at TEXT NOT NULL,
    sent_at         TEXT NOT NULL
);
