//! End-to-end tests of the `neardup` binary.

mod cli;
mod index;
mod pairs;
mod util;
