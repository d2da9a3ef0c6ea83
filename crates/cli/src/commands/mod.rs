//! One module per subcommand.

pub mod compare;
pub mod dedup;
pub mod eval;
pub mod fingerprint;
pub mod idf;
pub mod index;
pub mod pairs;
pub mod plan;
pub mod serve;
