//! Exact Hamming-distance search over SimHash fingerprints.
//!
//! This crate knows fingerprints, never text. Its modules follow a search:
//!
//! - [`Bits`]: fingerprints as `u64` or `u128`;
//! - [`TablePlan`]: which blocks of the bits key which table, and which plan
//!   suits a number of fingerprints ([`TablePlan::choose`]);
//! - [`OnlineIndex`]: queries between inserts and deletes; [`AnyOnlineIndex`]:
//!   the same, of a width known at run time;
//! - [`Segment`]: an index saved to a file and opened by memory map (the
//!   store, `neardup-store`, keeps its documents in segments), with a
//!   filter of its names ([`NameHash`]) that rules out most names it does
//!   not hold without reading them, a table that finds an entry by name,
//!   and each entry's sequence number;
//! - [`self_join`] and [`cross_join`]: every pair within `k` bits, one table
//!   at a time (Manku, Jain and Das Sarma 2007, §3); [`pairs_in_group`]
//!   and [`shuffle_plan`]: the same join for engines that group rows by key
//!   themselves (Spark);
//! - [`SpillSort`]: records (pairs, say) sorted past memory, in runs on
//!   disk merged as they are read back;
//! - [`brute_force_pairs`], [`brute_force_cross`]: the same by comparing
//!   every pair, the oracle the tests hold the rest to.
//!
//! Results are exact: every pair within `k` is found, once, with its
//! distance.
//!
//! # Example
//!
//! ```
//! use neardup_core::Width;
//! use neardup_index::{TablePlan, brute_force_pairs, self_join};
//!
//! let fps: Vec<u64> = (0..1000u64).map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15)).collect();
//! let plan = TablePlan::new(Width::W64, 3, 5)?;
//! assert_eq!(self_join(&plan, &fps)?, brute_force_pairs(3, &fps));
//! # Ok::<(), neardup_index::Error>(())
//! ```

#![deny(missing_docs)]
#![doc(test(attr(deny(warnings))))]

mod any_width;
mod bits;
mod brute;
mod error;
mod join;
mod key_table;
mod keyed;
mod lock;
mod name_filter;
mod name_table;
mod online;
mod plan;
mod query;
mod segment;
mod segment_writer;
mod spill_sort;

pub use any_width::AnyOnlineIndex;
pub use bits::Bits;
pub use brute::{brute_force_cross, brute_force_pairs};
pub use error::{Error, Result};
pub use join::{
    Pair, Run, cross_join, cross_join_each, for_each_run, map_runs, self_join, self_join_each,
    self_join_where, with_neighbours,
};
pub use keyed::{pairs_in_group, shuffle_plan};
pub use lock::{LOCK_FILE, WriterLock};
pub use name_filter::{BITS_PER_NAME, NameHash};
pub use online::OnlineIndex;
pub use plan::{Block, MAX_TABLES, PlanChoice, PlanOption, TablePlan};
pub use query::Neighbour;
pub use segment::{SEGMENT_FORMAT, Segment};
pub use spill_sort::{Sorted, SpillSort};
