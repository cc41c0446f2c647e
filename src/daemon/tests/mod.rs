//! The daemon's unit tests, by the file whose code they try.

mod inbound;
mod outbox;
