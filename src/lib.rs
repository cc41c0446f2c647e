//! pbmchess: a play-by-email turn server for chess variants.
//!
//! The layers, arrows pointing one way: `main -> server -> {command, rules,
//! render, store}`; `mail` reads inbound mail for the server and drains the
//! outbox. `rules` imports nothing of ours.

pub mod command;
pub mod mail;
pub mod render;
pub mod rules;
pub mod store;
pub mod clock;
pub mod ratings;
pub mod config;
pub mod server;
pub mod timers;
