//! The integration tests of the pbmchess binary and library: one test
//! binary, one module per area. The end-to-end mail tests start Dovecot and
//! aiosmtpd themselves when those are installed (see `tests/servers/`).

mod admin;
mod cli;
mod common;
mod deployment;
mod docs;
mod hermetic;
mod mail;
mod pgn;
mod rules;
mod server;
mod web;
