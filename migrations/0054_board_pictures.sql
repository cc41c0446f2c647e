-- The picture a board mail carries (PNG), kept with its outbox row so that
-- a resend is the same mail byte for byte.
ALTER TABLE outbox ADD COLUMN picture BLOB;
-- The squares a ply changed ("board:file:rank" words, 0-based), drawn as
-- the last move's mark; NULL for plies stored before this column.
ALTER TABLE plies ADD COLUMN changed TEXT;
