//! See rules/mod.rs.
