//! A store of either width, for callers that learn the width at run time
//! (`neardup index`, the dedup job's `--against`): fingerprints go in and
//! out as `u128`s (the low 64 bits at width 64).

use std::path::Path;

use neardup_core::Width;

use crate::error::{Error, Result};
use crate::settings::StoreSettings;
use crate::store::{Store, StoreOptions, StoreStats};
use crate::view::Hit;
use crate::write::{Insert, Write, Written};

/// A [`Store`] of 64- or 128-bit fingerprints, as its settings say.
///
/// ```
/// use neardup_core::Width;
/// use neardup_store::{AnyStore, StoreOptions, StoreSettings};
///
/// let dir = tempfile::tempdir()?;
/// let settings = StoreSettings::new(Width::W128, 3, serde_json::Value::Null, false);
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
    /// use neardup_core::Width;
    /// use neardup_store::{AnyStore, StoreOptions, StoreSettings};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let settings = StoreSettings::new(Width::W64, 3, serde_json::Value::Null, false);
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
            None if dir.join("MANIFEST").exists() => Err(Error::Format(
                dir.join("MANIFEST"),
                "an index of an earlier layout, before the store: rebuild it with \
                 neardup index build (or dedup --save-index)"
                    .into(),
            )),
            None => Err(Error::Input(format!(
                "{} holds no index: make one with neardup index build (or dedup \
                 --save-index)",
                dir.display()
            ))),
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
    pub fn query(&self, query: u128, k: u32) -> Result<Vec<Hit>> {
        match self {
            AnyStore::W64(s) => s.query(query as u64, k),
            AnyStore::W128(s) => s.query(query, k),
        }
    }

    /// Stores `fingerprints` under `ids`, all or none: refused when an id
    /// repeats or is stored already. Written in transactions of 65,536.
    ///
    /// # Errors
    ///
    /// [`Error::Input`] naming a repeated id, and as [`Store::write`].
    pub fn insert_all(&self, fingerprints: &[u128], ids: &[impl AsRef<str>]) -> Result<()> {
        self.check_new_ids(fingerprints, ids)?;
        let taken = |id: &str| {
            Error::Input(format!(
                "the name {id:?} is already in the index; names are unique"
            ))
        };
        let k = self.settings().k;
        for (fps, ids) in fingerprints.chunks(BATCH).zip(ids.chunks(BATCH)) {
            let written = match self {
                AnyStore::W64(s) => s.write(inserts(fps, ids, k, |f| f as u64), None)?,
                AnyStore::W128(s) => s.write(inserts(fps, ids, k, |f| f), None)?,
            };
            if let Some(Written::IdTaken { id }) = written
                .iter()
                .find(|w| matches!(w, Written::IdTaken { .. }))
            {
                return Err(taken(id));
            }
        }
        Ok(())
    }

    /// Refuses `ids` of another number than `fingerprints`, repeated, or
    /// stored already.
    pub(crate) fn check_new_ids(
        &self,
        fingerprints: &[u128],
        ids: &[impl AsRef<str>],
    ) -> Result<()> {
        if fingerprints.len() != ids.len() {
            return Err(Error::Input(format!(
                "{} ids for {} fingerprints",
                ids.len(),
                fingerprints.len()
            )));
        }
        let taken = |id: &str| {
            Error::Input(format!(
                "the name {id:?} is already in the index; names are unique"
            ))
        };
        let mut seen = std::collections::HashSet::with_capacity(ids.len());
        if let Some(id) = ids.iter().map(AsRef::as_ref).find(|&id| !seen.insert(id)) {
            return Err(taken(id));
        }
        if let Some(id) = self.first_stored(ids)? {
            return Err(taken(&id));
        }
        Ok(())
    }

    /// The first of `ids` already stored, looked up in one read
    /// transaction.
    fn first_stored(&self, ids: &[impl AsRef<str>]) -> Result<Option<String>> {
        use crate::log::Logged;
        let (db, dir) = match self {
            AnyStore::W64(s) => (&s.inner.db, &s.inner.dir),
            AnyStore::W128(s) => (&s.inner.db, &s.inner.dir),
        };
        let txn = db.begin_read(dir)?;
        let table = txn.open_table(crate::log::DOCUMENTS).logged(dir)?;
        for id in ids {
            if redb::ReadableTable::get(&table, id.as_ref())
                .logged(dir)?
                .is_some()
            {
                return Ok(Some(id.as_ref().to_string()));
            }
        }
        Ok(None)
    }

    /// Every stored fingerprint with its id.
    pub fn entries(&self) -> Vec<(String, u128)> {
        match self {
            AnyStore::W64(s) => s.entries(),
            AnyStore::W128(s) => s.entries(),
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

fn inserts<B>(
    fps: &[u128],
    ids: &[impl AsRef<str>],
    k: u32,
    narrow: impl Fn(u128) -> B,
) -> Vec<Write<B>> {
    fps.iter()
        .zip(ids)
        .map(|(&f, id)| Write::Insert(Insert::new(narrow(f), k).id(id.as_ref())))
        .collect()
}
