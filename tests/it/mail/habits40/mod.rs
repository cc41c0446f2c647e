//! What players paste and how their mail programs write: the example
//! config as a new user trims it, signature and attribution lines, other
//! notations, pasted PGN.

mod attribution;
mod config;
mod help;
mod notation;
mod once;
mod pgn;
mod score;
