//! A store of either width, for callers that learn the width at run time
//! (`neardup index`, the dedup job's `--against`): fingerprints go in and
//! out as `u128`s (the low 64 bits at width 64).

use std::path::Path;

use neardup_core::Width;

use crate::error::{Damage, Error, Result};
use crate::judge::Judge;
use crate::options::StoreOptions;
use crate::record::StoredDocument;
use crate::settings::StoreSettings;
use crate::stats::StoreStats;
use crate::store::Store;
use crate::write::{Insert, Write, Written};
use neardup_index::Neighbour;

/// A [`Store`] of 64- or 128-bit fingerprints, as its settings say.
///
/// ```
/// use neardup_core::Width;
/// use neardup_store::{AnyStore, StoreOptions, StoreSettings};
///
/// let dir = tempfile::tempdir()?;
/// let settings = StoreSettings::builder(3).width(Width::W128).build();
/// let store = AnyStore::open(dir.path(), Some(&settings), StoreOptions::default())?;
/// store.insert_all(&[1 << 100, 0b1011], &["a", "b"])?;
/// assert!(store.insert_all(&[7], &["a"]).is_err(), "ids are unique");
/// assert_eq!(store.query(0b1010, 3)?[0].id, "b");
/// assert_eq!(store.entries().len(), 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub enum AnyStore {
    /// 64-bit fingerprints.
    W64(Store<u64>),
    /// 128-bit fingerprints.
    W128(Store<u128>),
}

/// Inserts written per transaction by [`AnyStore::insert_all`].
const BATCH: usize = 1 << 16;

impl AnyStore {
    /// Opens the store in `dir` as [`Store::open`], at the width of
    /// `settings` (given) or of the store (else).
    ///
    /// # Errors
    ///
    /// As [`Store::open`].
    pub fn open(
        dir: &Path,
        settings: Option<&StoreSettings>,
        options: StoreOptions,
    ) -> Result<AnyStore> {
        let width = match settings {
            Some(s) => s.width,
            None => AnyStore::width_of(dir)?,
        };
        Ok(match width {
            Width::W64 => AnyStore::W64(Store::open(dir, settings, options)?),
            _ => AnyStore::W128(Store::open(dir, settings, options)?),
        })
    }

    /// Opens the store in `dir` to read only, beside its writer if one
    /// runs, as [`Store::open_read_only`].
    ///
    /// ```
    /// use neardup_store::{AnyStore, StoreOptions, StoreSettings};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let settings = StoreSettings::builder(3).build();
    /// let writer = AnyStore::open(dir.path(), Some(&settings), StoreOptions::default())?;
    /// writer.insert_all(&[0b1011], &["a"])?;
    /// let reader = AnyStore::open_read_only(dir.path())?;
    /// assert_eq!(reader.entries(), [("a".to_string(), 0b1011)]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Store::open_read_only`].
    pub fn open_read_only(dir: &Path) -> Result<AnyStore> {
        Ok(match AnyStore::width_of(dir)? {
            Width::W64 => AnyStore::W64(Store::open_read_only(dir)?),
            _ => AnyStore::W128(Store::open_read_only(dir)?),
        })
    }

    /// The width of the store in `dir`; an error that says what to do when
    /// there is none.
    fn width_of(dir: &Path) -> Result<Width> {
        match StoreSettings::of(dir)? {
            Some(stored) => Ok(stored.width),
            // The index directories of neardup before the store.
            None if dir.join("MANIFEST").exists() => {
                Err(Error::Format(dir.join("MANIFEST"), Damage::EarlierLayout))
            }
            None => Err(Error::NoIndex {
                dir: dir.to_path_buf(),
            }),
        }
    }

    /// Whether `dir` holds a store (or an index of an earlier layout,
    /// which opening refuses with what to do).
    pub fn exists(dir: &Path) -> bool {
        dir.join(crate::log::LOG_FILE).exists() || dir.join("MANIFEST").exists()
    }

    /// The store's settings.
    pub fn settings(&self) -> &StoreSettings {
        match self {
            AnyStore::W64(s) => s.settings(),
            AnyStore::W128(s) => s.settings(),
        }
    }

    /// As [`Store::query`].
    ///
    /// # Errors
    ///
    /// As [`Store::query`].
    pub fn query(&self, query: u128, k: u32) -> Result<Vec<Neighbour<String>>> {
        match self {
            AnyStore::W64(s) => s.query(query as u64, k),
            AnyStore::W128(s) => s.query(query, k),
        }
    }

    /// As [`Store::query_keys`].
    ///
    /// # Errors
    ///
    /// As [`Store::query_keys`].
    pub fn query_keys(&self, query: u128, keys: &[u64]) -> Result<Vec<Neighbour<String>>> {
        match self {
            AnyStore::W64(s) => s.query_keys(query as u64, keys),
            AnyStore::W128(s) => s.query_keys(query, keys),
        }
    }

    /// As [`Store::get`].
    ///
    /// # Errors
    ///
    /// As [`Store::get`].
    pub fn get(&self, id: &str) -> Result<Option<StoredDocument>> {
        match self {
            AnyStore::W64(s) => s.get(id),
            AnyStore::W128(s) => s.get(id),
        }
    }

    /// As [`Store::write`]: `writes` in one transaction, each insert
    /// judged (by `judge`, when both texts are kept) against the documents
    /// stored before it, this batch's earlier ones included.
    ///
    /// ```
    /// use neardup_store::{AnyStore, Insert, StoreOptions, StoreSettings, Write, Written};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let settings = StoreSettings::builder(3).build();
    /// let store = AnyStore::open(dir.path(), Some(&settings), StoreOptions::default())?;
    /// let written = store.write(vec![
    ///     Write::Insert(Insert::new(0b1011, 3).id("a")),
    ///     Write::Insert(Insert::new(0b1010, 3).id("b").only_if_unique()),
    /// ], None)?;
    /// assert!(matches!(&written[1], Written::NotUnique { duplicates, .. } if duplicates[0].id == "a"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Store::write`].
    pub fn write(
        &self,
        writes: Vec<Write<u128>>,
        judge: Option<&dyn Judge>,
    ) -> Result<Vec<Written>> {
        match self {
            AnyStore::W64(s) => s.write(
                writes
                    .into_iter()
                    .map(|w| match w {
                        Write::Insert(i) => Write::Insert(narrowed(i, |f| f as u64)),
                        Write::Delete(id) => Write::Delete(id),
                    })
                    .collect(),
                judge,
            ),
            AnyStore::W128(s) => s.write(writes, judge),
        }
    }

    /// Stores `inserts` (each with an id, at most the store's k), all or
    /// none: refused when an id repeats or is stored already. Written in
    /// transactions of 65,536.
    ///
    /// ```
    /// use neardup_store::{AnyStore, Insert, StoreOptions, StoreSettings};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let settings = StoreSettings::builder(3).texts(true).build();
    /// let store = AnyStore::open(dir.path(), Some(&settings), StoreOptions::default())?;
    /// store.insert_documents(vec![Insert::new(0b1011, 3).id("a").text("a text")])?;
    /// assert_eq!(store.get("a")?.and_then(|d| d.text).as_deref(), Some("a text"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::IdTaken`] naming a repeated id, [`Error::MissingId`], and
    /// as [`Store::write`].
    pub fn insert_documents(&self, inserts: Vec<Insert<u128>>) -> Result<()> {
        let taken = |id: &str| Error::IdTaken { id: id.to_string() };
        self.checked_ids(&inserts)?;
        let mut inserts = inserts.into_iter().peekable();
        while inserts.peek().is_some() {
            let batch = inserts.by_ref().take(BATCH);
            let written = match self {
                AnyStore::W64(s) => s.write(
                    batch
                        .map(|i| Write::Insert(narrowed(i, |f| f as u64)))
                        .collect(),
                    None,
                )?,
                AnyStore::W128(s) => s.write(batch.map(Write::Insert).collect(), None)?,
            };
            if let Some(Written::IdTaken { id }) = written
                .iter()
                .find(|w| matches!(w, Written::IdTaken { .. }))
            {
                return Err(taken(id));
            }
        }
        self.wait_for_flush();
        Ok(())
    }

    /// Stores `fingerprints` under `ids`, all or none: refused when an id
    /// repeats or is stored already. Written in transactions of 65,536;
    /// returns once the last flush it started has ended, so that a process
    /// may exit after it with nothing to redo at the next open.
    ///
    /// # Errors
    ///
    /// [`Error::IdTaken`] naming a repeated id, and as [`Store::write`].
    pub fn insert_all(&self, fingerprints: &[u128], ids: &[impl AsRef<str>]) -> Result<()> {
        self.insert_documents(self.inserts_of(fingerprints, ids)?)
    }

    /// Inserts of `fingerprints` named `ids`, within the store's k.
    pub(crate) fn inserts_of(
        &self,
        fingerprints: &[u128],
        ids: &[impl AsRef<str>],
    ) -> Result<Vec<Insert<u128>>> {
        if fingerprints.len() != ids.len() {
            return Err(Error::IdsMismatch {
                ids: ids.len(),
                fingerprints: fingerprints.len(),
            });
        }
        let k = self.settings().k;
        Ok(fingerprints
            .iter()
            .zip(ids)
            .map(|(&f, id)| Insert::new(f, k).id(id.as_ref()))
            .collect())
    }

    /// The ids of `inserts`, refused as [`AnyStore::check_new_ids`] does,
    /// and when one has none.
    pub(crate) fn checked_ids(&self, inserts: &[Insert<u128>]) -> Result<Vec<String>> {
        let ids = inserts
            .iter()
            .map(|i| i.id.clone().ok_or(Error::MissingId))
            .collect::<Result<Vec<String>>>()?;
        self.check_new_ids(&ids)?;
        Ok(ids)
    }

    /// Refuses `ids` as new names: one that repeats, or is stored already.
    ///
    /// ```
    /// use neardup_store::{AnyStore, StoreOptions, StoreSettings};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let settings = StoreSettings::builder(3).build();
    /// let store = AnyStore::open(dir.path(), Some(&settings), StoreOptions::default())?;
    /// store.insert_all(&[1], &["a"])?;
    /// assert!(store.check_new_ids(&["b", "c"]).is_ok());
    /// assert!(store.check_new_ids(&["b", "b"]).is_err());
    /// assert!(store.check_new_ids(&["a"]).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::IdTaken`] naming the first such id; [`Error::Log`] when the
    /// log cannot be read.
    pub fn check_new_ids(&self, ids: &[impl AsRef<str>]) -> Result<()> {
        let taken = |id: &str| Error::IdTaken { id: id.to_string() };
        let mut seen = std::collections::HashSet::with_capacity(ids.len());
        if let Some(id) = ids.iter().map(AsRef::as_ref).find(|&id| !seen.insert(id)) {
            return Err(taken(id));
        }
        match self.first_stored(ids)? {
            Some(id) => Err(taken(&id)),
            None => Ok(()),
        }
    }

    /// The first of `ids` already stored, looked up in one snapshot.
    fn first_stored(&self, ids: &[impl AsRef<str>]) -> Result<Option<String>> {
        match self {
            AnyStore::W64(s) => s.inner.first_stored(ids),
            AnyStore::W128(s) => s.inner.first_stored(ids),
        }
    }

    /// Every stored fingerprint with its id.
    pub fn entries(&self) -> Vec<(String, u128)> {
        match self {
            AnyStore::W64(s) => s.entries(),
            AnyStore::W128(s) => s.entries(),
        }
    }

    /// As [`Store::wait_for_flush`].
    pub fn wait_for_flush(&self) {
        match self {
            AnyStore::W64(s) => s.wait_for_flush(),
            AnyStore::W128(s) => s.wait_for_flush(),
        }
    }

    /// As [`Store::stats`].
    pub fn stats(&self) -> StoreStats {
        match self {
            AnyStore::W64(s) => s.stats(),
            AnyStore::W128(s) => s.stats(),
        }
    }

    /// The bytes of the store's files.
    pub fn file_bytes(&self) -> u64 {
        let dir = match self {
            AnyStore::W64(s) => s.dir(),
            AnyStore::W128(s) => s.dir(),
        };
        std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| e.metadata().ok())
            .map(|m| m.len())
            .sum()
    }
}

/// An insert of a 128-bit fingerprint, narrowed to another width.
pub(crate) fn narrowed<B>(insert: Insert<u128>, narrow: impl Fn(u128) -> B) -> Insert<B> {
    Insert {
        id: insert.id,
        fingerprint: narrow(insert.fingerprint),
        text: insert.text,
        metadata: insert.metadata,
        k: insert.k,
        only_if_unique: insert.only_if_unique,
        keys: insert.keys,
        presearch: insert.presearch,
    }
}
