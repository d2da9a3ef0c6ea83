//! Labelled batches: many documents stored in one transaction, with a
//! label the store remembers for the last of them, so that the writer of a
//! batch can learn after a crash whether the store holds it, and take it
//! out again.
//!
//! `neardup dedup --save-index` adds a run's kept documents as one batch,
//! labelled with the run; a later run that finds the last batch's run never
//! finished its outputs undoes it (docs/DEDUP.md, "Incremental runs"). The
//! label is the manifest's `last_batch` entry and the batch's ids are table
//! `last_batch`, both written in the batch's own transaction, which
//! commits as a checkpoint of the log (`checkpoint.rs`). A store made
//! before batches has neither, and so no last batch; stores with them stay
//! readable by earlier builds, which ignore both.

use redb::{ReadableTable, ReadableTableMetadata};

use neardup_index::Bits;

use crate::any_width::{AnyStore, narrowed};
use crate::error::{Error, Result};
use crate::log::{self, LAST_BATCH, Logged};
use crate::store::Store;
use crate::write::{Insert, Write, Written};

/// The last labelled batch a store took ([`AnyStore::insert_batch`]).
///
/// ```
/// use neardup_store::{AnyStore, LastBatch, StoreOptions, StoreSettings};
///
/// let dir = tempfile::tempdir()?;
/// let settings = StoreSettings::builder(3).build();
/// let store = AnyStore::open(dir.path(), Some(&settings), StoreOptions::default())?;
/// store.insert_batch(&[0b1011, 1 << 40], &["a", "b"], "run 1")?;
/// let batch = store.last_batch()?;
/// assert_eq!(batch, Some(LastBatch { label: "run 1".into(), documents: 2 }));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LastBatch {
    /// Its label, as given or as [`AnyStore::relabel_last_batch`] changed it.
    pub label: String,
    /// How many documents it stored.
    pub documents: usize,
}

impl<B: Bits> Store<B> {
    fn insert_batch(&self, writes: Vec<Write<B>>, ids: &[&str], label: &str) -> Result<()> {
        let dir = self.inner.dir.as_path();
        let record = |txn: &redb::WriteTransaction| {
            txn.delete_table(LAST_BATCH).logged(dir)?;
            let mut table = txn.open_table(LAST_BATCH).logged(dir)?;
            for id in ids {
                table.insert(*id, ()).logged(dir)?;
            }
            log::set(txn, dir, "last_batch", label)
        };
        let written = self.write_with(writes, None, Some(&record))?;
        // The ids were checked under the writer's lock: none is taken.
        match written
            .iter()
            .find(|w| !matches!(w, Written::Inserted { .. }))
        {
            Some(w) => Err(Error::PartialBatch {
                label: label.to_string(),
                written: Box::new(w.clone()),
            }),
            None => Ok(()),
        }
    }

    fn last_batch(&self) -> Result<Option<LastBatch>> {
        let dir = self.inner.dir.as_path();
        let txn = self.inner.db.begin_read(dir)?;
        let Some(label) = log::read_manifest(&txn, dir)?.last_batch else {
            return Ok(None);
        };
        let documents = match txn.open_table(LAST_BATCH) {
            Ok(table) => table.len().logged(dir)? as usize,
            Err(redb::TableError::TableDoesNotExist(_)) => 0,
            Err(e) => return Err(e).logged(dir),
        };
        Ok(Some(LastBatch { label, documents }))
    }

    fn relabel_last_batch(&self, label: &str) -> Result<bool> {
        let dir = self.inner.dir.as_path();
        let mut counters = self.inner.lock_writer();
        // A batch commits as a checkpoint: the log's last commit has the
        // last one's label.
        let txn = self.inner.db.begin_read(dir)?;
        if log::read_manifest(&txn, dir)?.last_batch.is_none() {
            return Ok(false);
        }
        self.inner
            .checkpoint_with(&mut counters, |txn| log::set(txn, dir, "last_batch", label))?;
        Ok(true)
    }

    fn undo_last_batch(&self) -> Result<Option<usize>> {
        let dir = self.inner.dir.as_path();
        let ids = {
            let txn = self.inner.db.begin_read(dir)?;
            if log::read_manifest(&txn, dir)?.last_batch.is_none() {
                return Ok(None);
            }
            let mut ids = Vec::new();
            match txn.open_table(LAST_BATCH) {
                Ok(table) => {
                    for entry in table.iter().logged(dir)? {
                        ids.push(entry.logged(dir)?.0.value().to_string());
                    }
                }
                Err(redb::TableError::TableDoesNotExist(_)) => {}
                Err(e) => return Err(e).logged(dir),
            }
            ids
        };
        let deletes = ids.into_iter().map(Write::Delete).collect();
        let forget = |txn: &redb::WriteTransaction| {
            txn.delete_table(LAST_BATCH).logged(dir)?;
            log::unset(txn, dir, "last_batch")
        };
        let written = self.write_with(deletes, None, Some(&forget))?;
        Ok(Some(
            written
                .iter()
                .filter(|w| matches!(w, Written::Deleted { .. }))
                .count(),
        ))
    }
}

impl AnyStore {
    /// Stores `fingerprints` under `ids` as one batch labelled `label`, in
    /// one transaction: all or none, and the store's last batch from then
    /// on ([`AnyStore::last_batch`]). Refused when an id repeats or is
    /// stored already.
    ///
    /// # Errors
    ///
    /// [`Error::IdTaken`] naming a repeated id, and as [`Store::write`].
    pub fn insert_batch(&self, fingerprints: &[u128], ids: &[&str], label: &str) -> Result<()> {
        self.insert_labelled(self.inserts_of(fingerprints, ids)?, label)
    }

    /// Stores `inserts` (each with an id; texts and short-document keys
    /// kept as the store's settings say) as one batch labelled `label`, as
    /// [`AnyStore::insert_batch`] does.
    ///
    /// ```
    /// use neardup_store::{AnyStore, Insert, StoreOptions, StoreSettings};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let settings = StoreSettings::builder(3).texts(true).build();
    /// let store = AnyStore::open(dir.path(), Some(&settings), StoreOptions::default())?;
    /// store.insert_labelled(vec![Insert::new(0b1011, 3).id("a").text("a text")], "run 1")?;
    /// assert_eq!(store.last_batch()?.map(|b| b.documents), Some(1));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::IdTaken`] naming a repeated id, [`Error::MissingId`], and
    /// as [`Store::write`].
    pub fn insert_labelled(&self, inserts: Vec<Insert<u128>>, label: &str) -> Result<()> {
        let ids = self.checked_ids(&inserts)?;
        let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
        match self {
            AnyStore::W64(s) => {
                let writes = inserts
                    .into_iter()
                    .map(|i| Write::Insert(narrowed(i, |f| f as u64)))
                    .collect();
                s.insert_batch(writes, &ids, label)?;
            }
            AnyStore::W128(s) => {
                let writes = inserts.into_iter().map(Write::Insert).collect();
                s.insert_batch(writes, &ids, label)?;
            }
        }
        // As a bulk load: a process may exit after it.
        self.wait_for_flush();
        Ok(())
    }

    /// The last batch [`AnyStore::insert_batch`] stored, unless undone.
    ///
    /// # Errors
    ///
    /// [`Error::Log`] when the log cannot be read.
    pub fn last_batch(&self) -> Result<Option<LastBatch>> {
        match self {
            AnyStore::W64(s) => s.last_batch(),
            AnyStore::W128(s) => s.last_batch(),
        }
    }

    /// Gives the last batch the label `label`, in a transaction of its own;
    /// `false` when there is none.
    ///
    /// ```
    /// use neardup_store::{AnyStore, StoreOptions, StoreSettings};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let settings = StoreSettings::builder(3).build();
    /// let store = AnyStore::open(dir.path(), Some(&settings), StoreOptions::default())?;
    /// assert!(!store.relabel_last_batch("done")?);
    /// store.insert_batch(&[0b1011], &["a"], "pending")?;
    /// assert!(store.relabel_last_batch("done")?);
    /// assert_eq!(store.last_batch()?.map(|b| b.label).as_deref(), Some("done"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Store::write`]; a store open to read only refuses.
    pub fn relabel_last_batch(&self, label: &str) -> Result<bool> {
        match self {
            AnyStore::W64(s) => s.relabel_last_batch(label),
            AnyStore::W128(s) => s.relabel_last_batch(label),
        }
    }

    /// Deletes the documents of the last batch, in one transaction that
    /// also forgets it: the number deleted (those deleted since are not
    /// counted), or `None` when there is no last batch.
    ///
    /// ```
    /// use neardup_store::{AnyStore, StoreOptions, StoreSettings};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let settings = StoreSettings::builder(3).build();
    /// let store = AnyStore::open(dir.path(), Some(&settings), StoreOptions::default())?;
    /// store.insert_batch(&[1 << 40], &["a"], "day 1")?;
    /// store.insert_batch(&[0b1011, 0b1010_0000], &["b", "c"], "day 2")?;
    /// assert_eq!(store.undo_last_batch()?, Some(2));
    /// assert_eq!(store.entries(), [("a".to_string(), 1 << 40)]);
    /// assert_eq!(store.undo_last_batch()?, None, "one batch is remembered");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Store::write`].
    pub fn undo_last_batch(&self) -> Result<Option<usize>> {
        match self {
            AnyStore::W64(s) => s.undo_last_batch(),
            AnyStore::W128(s) => s.undo_last_batch(),
        }
    }
}

#[cfg(test)]
mod tests {
    use neardup_core::Width;

    use super::*;
    use crate::{StoreOptions, StoreSettings};

    #[test]
    fn a_batch_survives_reopening_and_undoes_after_a_flush() {
        let dir = tempfile::tempdir().unwrap();
        let settings = StoreSettings::builder(3).width(Width::W128).build();
        let options = StoreOptions::builder().flush_at(4).build();
        let store = AnyStore::open(dir.path(), Some(&settings), options.clone()).unwrap();
        store.insert_all(&[1 << 100], &["old"]).unwrap();
        // As a store made before batches: none to read or undo.
        assert_eq!(store.last_batch().unwrap(), None);
        assert_eq!(store.undo_last_batch().unwrap(), None);
        assert!(!store.relabel_last_batch("z").unwrap());
        let ids: Vec<String> = (0..10).map(|i| format!("d{i}")).collect();
        let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
        let fps: Vec<u128> = (0..10u32).map(|i| 1u128 << (i * 11)).collect();
        store.insert_batch(&fps, &ids, "x").unwrap();
        assert!(store.insert_batch(&[5], &["d3"], "y").is_err(), "taken");
        drop(store);
        let store = AnyStore::open(dir.path(), None, options).unwrap();
        let batch = store.last_batch().unwrap().unwrap();
        assert_eq!((batch.label.as_str(), batch.documents), ("x", 10));
        assert!(!store.stats().segments.is_empty(), "flushed to a segment");
        assert_eq!(store.undo_last_batch().unwrap(), Some(10));
        assert_eq!(store.entries(), [("old".to_string(), 1 << 100)]);
        assert_eq!(store.last_batch().unwrap(), None);
    }
}
