-- Position keys from the fixed algorithm of `rules::key` (version 1) in
-- place of `std`'s `DefaultHasher`, whose algorithm may change between
-- toolchains. The keys stored before were made by the old hash:
-- clear them, so that each board is replayed once on its next load and its
-- plies get the new keys (as for plies stored before migration 0026).
UPDATE plies SET position_key = NULL;
