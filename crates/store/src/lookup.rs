//! Reads of the log as of the last acknowledged write: the writes since
//! the last checkpoint (`checkpoint.rs`), then the checkpoint's snapshot of
//! the log and of the documents file (`cold.rs`).

use std::sync::RwLockReadGuard;

use redb::ReadTransaction;

use crate::checkpoint::Unchecked;
use neardup_index::Bits;

use crate::error::Result;
use crate::log::{KEYED, Logged};
use crate::records::Records;
use crate::store::Inner;

impl<B: Bits> Inner<B> {
    /// The records as of the last acknowledged write, to look up: those
    /// written since the last checkpoint, then its snapshot of the log and
    /// of the documents file. Writes wait to be acknowledged while it is
    /// held. A reader reads the snapshot its view was read from: with a
    /// later one its view, which it never reads again, would send lookups
    /// to records a flush has dropped since.
    pub(crate) fn lookup(&self) -> Result<Lookup<'_, B>> {
        // Taken before the snapshot: a checkpoint forgets its writes here
        // only once its commit is there to read.
        let unchecked = self.unchecked.read().unwrap_or_else(|e| e.into_inner());
        let snapshot = match &self.pinned {
            Some(pinned) => Snapshot::Pinned(pinned),
            None => {
                let txn = self.db.begin_read(&self.dir)?;
                let records = Records::read(&txn, &self.cold, &self.dir)?;
                Snapshot::Taken(Box::new(Pinned { txn, records }))
            }
        };
        Ok(Lookup {
            unchecked,
            snapshot,
            inner: self,
        })
    }

    /// The first of `ids` already stored, looked up in one snapshot.
    pub(crate) fn first_stored(&self, ids: &[impl AsRef<str>]) -> Result<Option<String>> {
        let lookup = self.lookup()?;
        for id in ids {
            if lookup.get(id.as_ref())?.is_some() {
                return Ok(Some(id.as_ref().to_string()));
            }
        }
        Ok(None)
    }
}

/// A snapshot of the log and of the documents file, taken in that order.
pub(crate) struct Pinned {
    pub(crate) txn: ReadTransaction,
    pub(crate) records: Records,
}

impl std::fmt::Debug for Pinned {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Pinned(a snapshot of the log and the documents file)")
    }
}

/// A lookup's snapshot: its own, or its reader's.
enum Snapshot<'a> {
    Taken(Box<Pinned>),
    Pinned(&'a Pinned),
}

impl Snapshot<'_> {
    fn get(&self) -> &Pinned {
        match self {
            Snapshot::Taken(taken) => taken,
            Snapshot::Pinned(pinned) => pinned,
        }
    }
}

/// The store's records as [`Inner::lookup`] took them.
pub(crate) struct Lookup<'a, B> {
    unchecked: RwLockReadGuard<'a, Unchecked>,
    snapshot: Snapshot<'a>,
    /// The store, whose view each lookup reads after the snapshot
    /// (`records.rs`).
    inner: &'a Inner<B>,
}

impl<B: Bits> Lookup<'_, B> {
    /// The record of `id`, if stored.
    pub(crate) fn get(&self, id: &str) -> Result<Option<Vec<u8>>> {
        match self.unchecked.record(id) {
            Some(written) => Ok(written.map(<[u8]>::to_vec)),
            None => {
                let view = self.inner.read_view();
                let records = &self.snapshot.get().records;
                records.get(id, &self.inner.dir, &view)
            }
        }
    }

    /// The ids of the documents under any of the short-document `keys`.
    pub(crate) fn keyed_ids(&self, keys: &[u64]) -> Result<Vec<String>> {
        match self.snapshot.get().txn.open_table(KEYED) {
            Ok(keyed) => {
                crate::write::keyed_ids(&keyed, keys, &self.inner.dir, Some(&self.unchecked))
            }
            // None as of the checkpoint: those written since, if any.
            Err(redb::TableError::TableDoesNotExist(_)) => {
                let mut ids = Vec::new();
                for &key in keys {
                    self.unchecked.keyed(key, &mut ids);
                }
                ids.sort_unstable();
                ids.dedup();
                Ok(ids)
            }
            Err(e) => Err(e).logged(&self.inner.dir),
        }
    }
}
