//! End-to-end tests of the `neardup` binary.

mod cli;
mod dedup;
mod index;
mod pairs;
mod util;
