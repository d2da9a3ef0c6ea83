//! The index against brute force.

mod join;
