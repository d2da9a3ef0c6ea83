//! A durable store of fingerprinted documents: what `neardup serve` and
//! `neardup index` keep, so that a crawler can ask "have we seen this
//! already?" of everything stored, and store it when new, without losing
//! an acknowledged document to a crash.
//!
//! Its modules follow a write:
//!
//! - [`StoreSettings`]: what the fingerprints were made with, recorded when
//!   the store is made and checked on every open;
//! - the write-ahead log (`store.wal`): each group commit's changes,
//!   appended and synced before the write is acknowledged;
//! - the log (`store.redb`, a redb database): the acknowledged documents
//!   not in a segment yet ([`StoredDocument`]), the manifest and the deleted
//!   segment entries, taking the write-ahead log's changes in one
//!   checksummed transaction every second or so (a checkpoint);
//! - the documents file (`documents.redb`): the records of the documents in
//!   segments, moved there by the flush that wrote their segment;
//! - the view: immutable index segments on disk ([`neardup_index::Segment`])
//!   and the recent documents in memory, which queries read;
//! - [`Store::write`]: a batch of [`Write`]s committed, then applied;
//! - flushing: every so often the recent documents frozen and written to a
//!   segment of their own, in the background;
//! - merging: segments of a size merged in the background, tier by tier;
//! - labelled batches ([`AnyStore::insert_batch`]): many documents in one
//!   transaction, the last of them remembered so that it can be undone.
//!
//! A directory holds one store, written by one process at a time (a second
//! writer is refused, naming the first's lock) and read by any number of
//! others beside it ([`Store::open_read_only`]).
//!
//! # Example
//!
//! ```
//! use neardup_store::{Insert, Store, StoreOptions, StoreSettings, Write, Written};
//!
//! let dir = tempfile::tempdir()?;
//! let settings = StoreSettings::builder(3).build();
//! let store = Store::<u64>::open(dir.path(), Some(&settings), StoreOptions::default())?;
//! let first = Insert::new(0xff00u64, 3).id("a").only_if_unique();
//! let near = Insert::new(0xff01u64, 3).id("b").only_if_unique();
//! let written = store.write(vec![Write::Insert(first), Write::Insert(near)], None)?;
//! assert!(matches!(&written[1], Written::NotUnique { duplicates, .. } if duplicates[0].id == "a"));
//! assert_eq!(store.stats().documents, 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![deny(missing_docs)]
#![doc(test(attr(deny(warnings))))]

mod any_width;
mod batch;
mod change;
mod checkpoint;
mod cold;
mod error;
mod flush;
mod judge;
mod log;
mod lookup;
mod merge;
mod options;
mod presearch;
mod record;
mod records;
mod settings;
mod stats;
mod store;
mod view;
mod wal;
mod write;

pub use any_width::AnyStore;
pub use batch::LastBatch;
pub use error::{Damage, Error, Result};
pub use judge::{Against, Judge};
pub use log::STORE_LAYOUT;
pub use options::{StoreOptions, StoreOptionsBuilder};
pub use presearch::Presearch;
pub use record::StoredDocument;
pub use settings::{StoreSettings, StoreSettingsBuilder};
pub use stats::StoreStats;
pub use store::Store;
pub use write::{Duplicate, Insert, Write, Written};
