//! End-to-end tests of the `neardup` binary.

mod cli;
mod util;
