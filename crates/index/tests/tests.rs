//! The index against brute force.

mod join;
mod online;
mod segment;
