//! End-to-end tests of the `neardup` binary.

mod bbc;
mod cli;
mod conformance;
mod crash;
mod dedup;
mod index;
mod manners;
mod pairs;
mod quality;
mod report;
mod serve;
mod serve_attacks;
mod serve_compaction;
mod serve_token;
mod trips;
mod util;
