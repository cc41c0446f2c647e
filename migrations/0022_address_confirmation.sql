-- Addresses prove they are read before they get text a player wrote.
-- An address is
--   'confirmed'   gets everything (every address on file before this
--                 migration counts as confirmed, as do addresses the admin
--                 adds with `admin user add`);
--   'unconfirmed' the address a signup came from: gets only text the
--                 server wrote (board mails without comments, notices),
--                 no message or chat bodies;
--   'pending'     an extra or changed address: gets nothing but its one
--                 confirmation mail.
-- code_hash is the SHA-256 (hex) of userid, address and code; the code
-- is good until code_expires_at.
ALTER TABLE user_addresses ADD COLUMN status TEXT NOT NULL DEFAULT 'confirmed'
    CHECK (status IN ('confirmed', 'unconfirmed', 'pending'));
ALTER TABLE user_addresses ADD COLUMN code_hash TEXT;
ALTER TABLE user_addresses ADD COLUMN code_expires_at TEXT;
