//! The referee's tests: perft counts against each game's own reference
//! generator, scenario tests from position text, and orthodox chess against
//! cozy-chess.

mod chess;
mod differential_chess;
mod doppelganger;
mod doublechess;
mod harness;
mod shadow;
mod temporal;
mod zelig;
