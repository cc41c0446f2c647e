//! The game-level parts of pbmchess that are pure, above the referee
//! (`rules`) and below the server: the command language ([`command`]),
//! the drawings of a board and its record ([`render`]), tournaments
//! ([`tournament`]), conditional moves ([`conditional`]), ratings
//! ([`ratings`]) and the timers' arithmetic ([`timers`]). No I/O, no
//! clock (times come in as arguments), no database.

pub mod command;
pub mod conditional;
pub mod ratings;
pub mod render;
pub mod timers;
pub mod tournament;
