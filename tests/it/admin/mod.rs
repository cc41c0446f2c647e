//! The admin command line, driven through the real binary.

mod commands;
mod storage;
mod tournament;
