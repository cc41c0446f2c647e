-- The database says whose it is (SQLite's application_id in the file
-- header: "PBMC"), so a file that is not a pbmchess database (empty, or
-- another application's) is told apart before anything is written to it
-- (store::open).
PRAGMA application_id = 1346522435;
