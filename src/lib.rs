//! pbmchess: a play-by-email turn server for chess variants.
//!
//! The layers, arrows pointing one way: `main -> app -> {daemon, server}`
//! (and `main -> rules` for perft), `daemon -> quarantine -> server ->
//! {command, rules, render, store}`; `mail` reads inbound mail for the server and drains the
//! outbox. `rules` imports nothing of ours.

pub mod admin;
pub mod app;
pub mod check;
pub mod cli;
pub mod clock;
pub mod config;
pub mod daemon;
pub mod limits;
pub mod mail;
pub mod quarantine;
pub mod server;
pub mod status;
pub mod store;
