//! The store's integration tests, one binary: the store against a model
//! (`model`), the duplicates an insert is told of and how its texts are
//! judged (`judging`), and a store's life: opening, leftovers, compaction,
//! readers beside the writer (`lifecycle`). `small_store` opens the store
//! they share, small enough that a few inserts flush and merge.

mod judging;
mod lifecycle;
mod model;
mod small_store;
