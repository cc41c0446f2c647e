//! The server as a library: commands against a database on disk.

mod commands;
mod conditional;
mod fuzz;
mod pending;
mod reply_snapshots;
mod tournament;
