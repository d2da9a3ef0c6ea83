//! Integration tests of neardup-core: golden vectors and corpus properties.

mod corpora;
mod fuzz;
mod golden;
mod python_simhash;
mod util;
