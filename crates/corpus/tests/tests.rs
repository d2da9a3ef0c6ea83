//! Integration tests of neardup-corpus.

mod fuzz;
mod model;
mod parquet;
