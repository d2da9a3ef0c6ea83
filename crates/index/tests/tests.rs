//! The index against brute force.

mod golden;
mod join;
mod online;
mod segment;
