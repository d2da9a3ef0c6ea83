//! End-to-end tests of the `neardup` binary.

mod bbc;
mod cli;
mod dedup;
mod index;
mod pairs;
mod report;
mod util;
