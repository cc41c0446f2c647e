//! The computer player's tests: the tactics it must find and how it
//! fares against a weaker player.

mod strength;
mod tactics;
