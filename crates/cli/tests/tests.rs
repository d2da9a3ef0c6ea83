//! End-to-end tests of the `neardup` binary.

mod cli;
mod pairs;
mod util;
