//! The games as the server sees them: every registered game and its keys.

mod keys;
mod registry;
