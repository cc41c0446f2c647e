//! Game records: PGN written and replayed.

mod record;
mod replay;
