//! pbmchess: a play-by-email turn server for chess variants. This crate
//! is the server around the pure crates (`rules`, the referee;
//! `computer`, the computer player; `game`, the command language,
//! drawings, tournaments, conditional moves, ratings and timers):
//! `cli -> app -> {daemon, admin, check, status} -> quarantine -> server
//! -> store`, with `mail` reading inbound mail and sending the outbox.
//! docs/architecture.md maps the whole tree.
//!
//! Everything is `pub(crate)` unless the binary's integration tests and
//! benches use it (`unreachable_pub` warns of a `pub` nobody outside can
//! reach), so rustc sees dead code; the modules those tests drive are the
//! public ones below.

#![warn(unreachable_pub)]

mod admin;
mod app;
mod check;
pub mod cli;
pub mod clock;
pub mod config;
pub mod daemon;
mod hex;
mod limits;
pub mod mail;
mod quarantine;
pub mod server;
mod status;
pub mod store;
mod web;
