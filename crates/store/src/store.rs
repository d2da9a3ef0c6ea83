//! The store: opened, searched and read. Writes are in `write.rs`, merges
//! in `merge.rs`.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard};

use neardup_index::{Bits, LOCK_FILE, OnlineIndex, Segment, WriterLock};
use redb::ReadTransaction;

use crate::checkpoint::{self, CheckpointTally, Pending, Unchecked};
use crate::cold::{Cold, ColdRead};
use crate::error::{Damage, Error, Result};
use crate::flush::FlushTally;
use crate::log::{
    self, DOCUMENTS, FORMER_LAYOUTS, GONE, LOG_FILE, Log, Logged, Manifest, RECENT, STORE_LAYOUT,
};
use crate::lookup::Pinned;
use crate::options::{StoreOptions, recent_plan};
use crate::record::StoredDocument;
use crate::records::Records;
use crate::settings::StoreSettings;
use crate::view::{LiveSegment, View, recent_room};
use neardup_index::Neighbour;

/// A durable store of fingerprinted documents, searched exactly within
/// its `k` bits.
///
/// One process writes a store at a time (a second writer is refused;
/// readers open it beside, [`Store::open_read_only`]); within it, queries
/// run in parallel with each other and with writes, and writes are applied
/// one batch at a time.
///
/// ```
/// use neardup_store::{Insert, Store, StoreOptions, StoreSettings, Write, Written};
///
/// let dir = tempfile::tempdir()?;
/// let settings = StoreSettings::builder(3).build();
/// let store = Store::<u64>::open(dir.path(), Some(&settings), StoreOptions::default())?;
/// let written = store.write(vec![Write::Insert(Insert::new(0b1011, 3).id("a"))], None)?;
/// assert!(matches!(&written[0], Written::Inserted { id, .. } if id == "a"));
/// drop(store);
/// let store = Store::<u64>::open(dir.path(), None, StoreOptions::default())?;
/// assert_eq!(store.query(0b1010, 3)?[0].id, "a");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Store<B> {
    pub(crate) inner: Arc<Inner<B>>,
}

#[derive(Debug)]
pub(crate) struct Inner<B> {
    pub(crate) dir: PathBuf,
    pub(crate) db: Log,
    /// The records of documents in segments (`cold.rs`).
    pub(crate) cold: Cold,
    pub(crate) settings: StoreSettings,
    pub(crate) options: StoreOptions,
    pub(crate) view: RwLock<View<B>>,
    /// Held while a batch is written, a flush or a merge swaps segments.
    pub(crate) writer: Mutex<Counters>,
    pub(crate) merging: AtomicBool,
    pub(crate) merges: AtomicU64,
    /// The time merges took, from writing their segment to its swap.
    pub(crate) merge_micros: AtomicU64,
    pub(crate) merge_error: Mutex<Option<String>>,
    /// Whether a flush runs; `flushed` is told when one ends.
    pub(crate) flushing: Mutex<bool>,
    pub(crate) flushed: Condvar,
    pub(crate) flush_error: Mutex<Option<String>>,
    /// The last flush's thread, joined by [`Store::wait_for_flush`]: once
    /// joined, it holds no handle on the store (nor its lock).
    pub(crate) flush_thread: Mutex<Option<std::thread::JoinHandle<()>>>,
    /// An empty index with room for the next recent documents, made by the
    /// last flush for the next freeze (`flush.rs`).
    pub(crate) spare_recent: Mutex<Option<OnlineIndex<B>>>,
    /// The writes since the log's last checkpoint, which reads of the log
    /// look up first (`checkpoint.rs`).
    pub(crate) unchecked: RwLock<Unchecked>,
    /// A reader's snapshot of the log and the documents file, the one its
    /// view was read from; a writer's lookups take their own.
    pub(crate) pinned: Option<Pinned>,
    pub(crate) checkpoints: CheckpointTally,
    pub(crate) flushes: FlushTally,
    /// The writer's lock; a reader holds none.
    _lock: Option<WriterLock>,
}

/// The writer's counters, and its open transaction of the log.
#[derive(Debug)]
pub(crate) struct Counters {
    pub(crate) next_seq: u64,
    pub(crate) next_segment: u64,
    /// The writer's transaction and write-ahead log; a reader has none.
    pub(crate) pending: Option<Pending>,
    /// The writer's last snapshot of the documents file, kept for the
    /// next write ([`Cold::snapshot_since`]).
    pub(crate) cold: Option<ColdRead>,
}

impl Counters {
    /// The writer's transaction and write-ahead log; refused to a reader.
    pub(crate) fn pending(&mut self, dir: &Path) -> Result<&mut Pending> {
        self.pending.as_mut().ok_or_else(|| Error::ReadOnly {
            dir: dir.to_path_buf(),
        })
    }
}

impl<B: Bits> Store<B> {
    /// Opens the store in directory `dir`, creating it with `settings` when
    /// it holds none. When `settings` are given and the store has others,
    /// it is refused, naming what differs.
    ///
    /// # Errors
    ///
    /// [`Error::Index`] when another process has the store open
    /// ([`neardup_index::Error::Locked`]), [`Error::OtherSettings`] when the
    /// settings differ, [`Error::NoStore`] when `dir` holds no store and no
    /// settings are given;
    /// [`Error::Format`] when a file of the store is damaged; [`Error::Io`]
    /// and [`Error::Log`] when the files cannot be read.
    pub fn open(
        dir: &Path,
        settings: Option<&StoreSettings>,
        options: StoreOptions,
    ) -> Result<Store<B>> {
        let log_path = dir.join(LOG_FILE);
        if !log_path.exists() && settings.is_none() {
            return Err(Error::NoStore {
                dir: dir.to_path_buf(),
            });
        }
        // Other settings are refused before anything is made or locked: a
        // refused open leaves the directory as it was.
        if let Some(given) = settings
            && let Some(stored) = StoreSettings::of(dir)?
            && let Some(diff) = stored.difference(given)
        {
            return Err(other_settings(dir, &diff));
        }
        std::fs::create_dir_all(dir).map_err(|e| Error::Io(dir.to_path_buf(), e))?;
        let lock = WriterLock::acquire(dir, LOCK_FILE, "a store")?;
        let log = Log::create(dir)?;
        let fresh = log::read_manifest(&log.begin_read(dir)?, dir)?
            .settings
            .is_none();
        if let (true, Some(given)) = (fresh, settings) {
            create(&log, dir, given)?;
        }
        let manifest = log::read_manifest(&log.begin_read(dir)?, dir)?;
        let settings = settings_of(dir, &manifest, settings)?;
        let cold = Cold::for_writer(dir)?;
        if FORMER_LAYOUTS.contains(&manifest.layout.as_deref().unwrap_or_default()) {
            upgrade(&log, dir)?;
        }
        // The writes a crash left in the write-ahead log, checkpointed.
        let pending = Pending::open(&log, dir)?;
        let manifest = log::read_manifest(&log.begin_read(dir)?, dir)?;
        let txn = log.begin_read(dir)?;
        remove_leftovers(dir, &manifest.segments);
        let records = Records::read(&txn, &cold, dir)?;
        let (mut view, next_seq) = load_view(dir, &txn, &records, &manifest, &settings, &options)?;
        drop((records, txn));
        let room = recent_room(options.flush_at).saturating_sub(view.recent.len());
        view.recent.reserve(room);
        Ok(Store::assemble(
            dir,
            (log, cold),
            settings,
            options,
            view,
            (
                Counters {
                    next_seq: next_seq.max(manifest.next_seq),
                    next_segment: manifest.next_segment,
                    pending: Some(pending),
                    cold: None,
                },
                Unchecked::default(),
            ),
            (Some(lock), None),
        ))
    }

    /// Opens the store in `dir` to read only, whether or not another
    /// process writes it (`neardup serve`, say): it takes no lock, and
    /// neither waits for the writer nor makes it wait. Its queries search
    /// the store as it was when opened (every write acknowledged by then:
    /// the log's last checkpoint and the write-ahead log after it); its
    /// writes are refused.
    ///
    /// ```
    /// use neardup_store::{Insert, Store, StoreOptions, StoreSettings, Write};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let settings = StoreSettings::builder(3).build();
    /// let writer = Store::<u64>::open(dir.path(), Some(&settings), StoreOptions::default())?;
    /// writer.write(vec![Write::Insert(Insert::new(0b1011, 3).id("a"))], None)?;
    /// let reader = Store::<u64>::open_read_only(dir.path())?;
    /// assert_eq!(reader.query(0b1010, 3)?[0].id, "a");
    /// let refused = reader.write(vec![Write::Insert(Insert::new(7, 3).id("b"))], None);
    /// assert!(refused.unwrap_err().to_string().contains("reading only"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Store::open`], and [`Error::NoStore`] when `dir` holds no store.
    pub fn open_read_only(dir: &Path) -> Result<Store<B>> {
        let mut repair_lock = None;
        let log = Log::for_reading(dir, &mut repair_lock)?;
        let cold = Cold::for_reader(dir, &mut repair_lock)?;
        drop(repair_lock);
        let options = StoreOptions::default();
        // A merge may remove a segment between reading the manifest and
        // opening its file, and a checkpoint empty the write-ahead log
        // between reading the log and reading it: read them again then.
        let mut attempts = 0;
        loop {
            let txn = log.begin_read(dir)?;
            let manifest = log::read_manifest(&txn, dir)?;
            let settings = settings_of(dir, &manifest, None)?;
            let records = Records::read(&txn, &cold, dir)?;
            match load_view(dir, &txn, &records, &manifest, &settings, &options) {
                Err(Error::Index(neardup_index::Error::Io(_, e)))
                    if e.kind() == std::io::ErrorKind::NotFound && attempts < 8 =>
                {
                    attempts += 1;
                }
                Err(e) => return Err(e),
                Ok((mut view, next_seq)) => {
                    // Every lookup of the reader reads the snapshot its
                    // view was read from (`lookup.rs`).
                    let pinned = Pinned { txn, records };
                    let mut unchecked = Unchecked::default();
                    let epoch = manifest.wal_epoch;
                    checkpoint::read_since(dir, epoch, &mut view, &mut unchecked)?;
                    let now = log::read_manifest(&log.begin_read(dir)?, dir)?.wal_epoch;
                    if now != epoch && attempts < 8 {
                        attempts += 1;
                        continue;
                    }
                    let counters = Counters {
                        next_seq,
                        next_segment: manifest.next_segment,
                        pending: None,
                        cold: None,
                    };
                    return Ok(Store::assemble(
                        dir,
                        (log, cold),
                        settings,
                        options,
                        view,
                        (counters, unchecked),
                        (None, Some(pinned)),
                    ));
                }
            }
        }
    }

    fn assemble(
        dir: &Path,
        (log, cold): (Log, Cold),
        settings: StoreSettings,
        options: StoreOptions,
        view: View<B>,
        (counters, unchecked): (Counters, Unchecked),
        (lock, pinned): (Option<WriterLock>, Option<Pinned>),
    ) -> Store<B> {
        // Merges start after writes, not here: a process that opens a
        // store to read it (a dedup's --against) holds no merge thread.
        Store {
            inner: Arc::new(Inner {
                dir: dir.to_path_buf(),
                db: log,
                cold,
                settings,
                options,
                view: RwLock::new(view),
                writer: Mutex::new(counters),
                merging: AtomicBool::new(false),
                merges: AtomicU64::new(0),
                merge_micros: AtomicU64::new(0),
                merge_error: Mutex::new(None),
                flushing: Mutex::new(false),
                flushed: Condvar::new(),
                flush_error: Mutex::new(None),
                flush_thread: Mutex::new(None),
                spare_recent: Mutex::new(None),
                unchecked: RwLock::new(unchecked),
                pinned,
                checkpoints: CheckpointTally::default(),
                flushes: FlushTally::default(),
                _lock: lock,
            }),
        }
    }

    /// The store's settings.
    pub fn settings(&self) -> &StoreSettings {
        &self.inner.settings
    }

    /// Every stored document whose fingerprint is within `k` bits of
    /// `query`, by distance, then id.
    ///
    /// # Errors
    ///
    /// [`Error::KBeyondStore`] when `k` is past the store's.
    pub fn query(&self, query: B, k: u32) -> Result<Vec<Neighbour<String>>> {
        self.check_k(k)?;
        Ok(self
            .inner
            .read_view()
            .search(query, k)
            .into_iter()
            .map(|(hit, _)| hit)
            .collect())
    }

    /// Every stored document that shares one of the short-document `keys`
    /// ([`crate::Insert::keys`]), whatever its distance from `query`, by
    /// distance, then id; none when the store keeps no keys.
    ///
    /// ```
    /// use neardup_store::{Insert, Store, StoreOptions, StoreSettings, Write};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let settings = StoreSettings::builder(3).texts(true).short_keys("jaccard:0.8").build();
    /// let store = Store::<u64>::open(dir.path(), Some(&settings), StoreOptions::default())?;
    /// store.write(vec![Write::Insert(Insert::new(0xff, 3).id("a").text("a text").keys(vec![7]))], None)?;
    /// assert!(store.query(0, 3)?.is_empty());
    /// let hits = store.query_keys(0, &[5, 7])?;
    /// assert_eq!((hits[0].id.as_str(), hits[0].distance), ("a", 8));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::Log`] when the log cannot be read, [`Error::Format`] when
    /// a record is damaged.
    pub fn query_keys(&self, query: B, keys: &[u64]) -> Result<Vec<Neighbour<String>>> {
        if keys.is_empty() || self.inner.settings.short_keys.is_none() {
            return Ok(Vec::new());
        }
        let dir = &self.inner.dir;
        let lookup = self.inner.lookup()?;
        let mut hits = Vec::new();
        for id in lookup.keyed_ids(keys)? {
            if let Some(bytes) = lookup.get(&id)? {
                let doc = decode(dir, &id, &bytes)?;
                let distance = B::from_u128(doc.fingerprint).distance(query);
                hits.push(Neighbour { distance, id });
            }
        }
        hits.sort_by(|a, b| (a.distance, &a.id).cmp(&(b.distance, &b.id)));
        Ok(hits)
    }

    pub(crate) fn check_k(&self, k: u32) -> Result<()> {
        let most = self.inner.settings.k;
        if k > most {
            return Err(Error::KBeyondStore { k, most });
        }
        Ok(())
    }

    /// The stored document `id`, if any.
    ///
    /// # Errors
    ///
    /// [`Error::Log`] when the log cannot be read, [`Error::Format`] when
    /// the record is damaged.
    pub fn get(&self, id: &str) -> Result<Option<StoredDocument>> {
        let dir = &self.inner.dir;
        let Some(bytes) = self.inner.lookup()?.get(id)? else {
            return Ok(None);
        };
        decode(dir, id, &bytes).map(Some)
    }

    /// Every stored fingerprint with its document's id, in no set order.
    pub fn entries(&self) -> Vec<(String, u128)> {
        let view = self.inner.read_view();
        let mut out = Vec::with_capacity(view.len());
        for live in &view.segments {
            let deleted = view.deleted.get(&live.number);
            let segment = &live.segment;
            for (pos, fp) in segment.fingerprints().iter().enumerate() {
                let gone = deleted.is_some_and(|bits| crate::view::is_set(bits, pos as u32));
                if let (false, Some(id)) = (gone, segment.name(pos as u32)) {
                    out.push((id.to_string(), fp.to_u128()));
                }
            }
        }
        for (pos, doc) in view.recent_docs.iter().enumerate() {
            if let (Some((id, _)), Some(fp)) = (doc, view.recent.get(pos as u32)) {
                out.push((id.clone(), fp.to_u128()));
            }
        }
        if let Some(frozen) = &view.frozen {
            for (pos, id, _, fp) in frozen.documents() {
                if !crate::view::is_set(&view.frozen_deleted, pos) {
                    out.push((id.to_string(), fp.to_u128()));
                }
            }
        }
        out
    }

    /// The directory of the store.
    pub fn dir(&self) -> &Path {
        &self.inner.dir
    }
}

impl StoreSettings {
    /// The settings of the store in `dir`, or `None` when it holds none
    /// yet: to learn a store's width and `k` before opening it.
    ///
    /// # Errors
    ///
    /// As [`Store::open`].
    pub fn of(dir: &Path) -> Result<Option<StoreSettings>> {
        let log_path = dir.join(LOG_FILE);
        if !log_path.exists() {
            return Ok(None);
        }
        let log = Log::for_reading(dir, &mut None)?;
        let Some(text) = log::read_manifest(&log.begin_read(dir)?, dir)?.settings else {
            return Ok(None);
        };
        settings_in(&log_path, &text).map(Some)
    }
}

impl<B> Inner<B> {
    pub(crate) fn read_view(&self) -> RwLockReadGuard<'_, View<B>> {
        // A panic elsewhere cannot leave the view half-changed: every change
        // to it is made after the log commits, by code that does not panic.
        self.view.read().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn write_view(&self) -> RwLockWriteGuard<'_, View<B>> {
        self.view.write().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn lock_writer(&self) -> MutexGuard<'_, Counters> {
        self.writer.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The writes since the last checkpoint, to change.
    pub(crate) fn unchecked(&self) -> RwLockWriteGuard<'_, Unchecked> {
        self.unchecked.write().unwrap_or_else(|e| e.into_inner())
    }
}

/// The document record `bytes` of `id`, decoded.
pub(crate) fn decode(dir: &Path, id: &str, bytes: &[u8]) -> Result<StoredDocument> {
    StoredDocument::decode(bytes)
        .ok_or_else(|| Error::Format(dir.join(LOG_FILE), Damage::Record { id: id.to_string() }))
}

pub(crate) fn segment_name(number: u64) -> String {
    format!("seg-{number:06}.ndx")
}

fn segment_number(name: &str) -> Option<u64> {
    name.strip_prefix("seg-")?
        .strip_suffix(".ndx")?
        .parse()
        .ok()
}

/// Writes a new store's manifest.
fn create(log: &Log, dir: &Path, settings: &StoreSettings) -> Result<()> {
    let txn = log.begin(dir)?;
    log::set(&txn, dir, "layout", STORE_LAYOUT)?;
    log::set(&txn, dir, "settings", &settings.to_json().to_string())?;
    log::set(&txn, dir, "segments", "")?;
    txn.open_table(DOCUMENTS).logged(dir)?;
    txn.open_table(RECENT).logged(dir)?;
    txn.open_table(log::BARE).logged(dir)?;
    txn.open_table(GONE).logged(dir)?;
    txn.open_table(log::DELETED).logged(dir)?;
    txn.commit().logged(dir)
}

/// Records the present layout in a store of a former one: layout 1 had no
/// `gone` table in the log and no documents file (made by then), layout 2
/// no recent record in the documents file alone. An older build refuses
/// it from now on, as it would miss records there.
fn upgrade(log: &Log, dir: &Path) -> Result<()> {
    let txn = log.begin(dir)?;
    log::set(&txn, dir, "layout", STORE_LAYOUT)?;
    txn.open_table(GONE).logged(dir)?;
    txn.open_table(log::BARE).logged(dir)?;
    txn.commit().logged(dir)
}

/// The settings the manifest of `log_path` records as `text`.
fn settings_in(log_path: &Path, text: &str) -> Result<StoreSettings> {
    let unreadable = |reason: String| {
        let text = text.to_string();
        Error::Format(log_path.to_path_buf(), Damage::Settings { text, reason })
    };
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| unreadable(format!("not JSON ({e})")))?;
    StoreSettings::from_json(&value).map_err(unreadable)
}

/// The settings `manifest` records, checked against `given` when given.
fn settings_of(
    dir: &Path,
    manifest: &Manifest,
    given: Option<&StoreSettings>,
) -> Result<StoreSettings> {
    let log_path = dir.join(LOG_FILE);
    let Some(text) = &manifest.settings else {
        return Err(Error::Format(log_path, Damage::NoSettings));
    };
    let stored = settings_in(&log_path, text)?;
    let layout = manifest.layout.as_deref().unwrap_or_default();
    if layout != STORE_LAYOUT && !FORMER_LAYOUTS.contains(&layout) {
        let found = manifest.layout.clone();
        return Err(Error::Format(log_path, Damage::Layout { found }));
    }
    if let Some(diff) = given.and_then(|g| stored.difference(g)) {
        return Err(other_settings(dir, &diff));
    }
    Ok(stored)
}

fn other_settings(dir: &Path, diff: &str) -> Error {
    Error::OtherSettings {
        dir: dir.to_path_buf(),
        differences: diff.to_string(),
    }
}

/// The view of the store `manifest` describes: its segments opened, their
/// deleted entries and the recent documents read in one snapshot of the
/// log; and the sequence number after the last recent document.
fn load_view<B: Bits>(
    dir: &Path,
    txn: &ReadTransaction,
    records: &Records,
    manifest: &Manifest,
    settings: &StoreSettings,
    options: &StoreOptions,
) -> Result<(View<B>, u64)> {
    if settings.width != B::WIDTH {
        return Err(Error::WidthMismatch {
            dir: dir.to_path_buf(),
            bits: settings.width.bits(),
        });
    }
    let mut view = View::new(recent_plan(settings, options)?)?;
    for &number in &manifest.segments {
        let segment = Segment::open(&dir.join(segment_name(number)))?;
        view.segments
            .push(Arc::new(LiveSegment::new(number, segment)));
    }
    for (segment, pos) in log::deleted_entries(txn, dir)? {
        view.delete(crate::view::Place::Segment { segment, pos });
    }
    let next_seq = load_recent(txn, records, dir, manifest.recent_from, &mut view)?;
    Ok((view, next_seq))
}

/// Fills `view`'s recent documents from the log's rows from sequence
/// number `from` on (those below are flushed, `flush.rs`); returns the
/// sequence number after the last.
fn load_recent<B: Bits>(
    txn: &ReadTransaction,
    records: &Records,
    dir: &Path,
    from: u64,
    view: &mut View<B>,
) -> Result<u64> {
    let recent = txn.open_table(RECENT).logged(dir)?;
    // A flush of a former build stopped before its swap may have moved a
    // recent document's record to the documents file (`cold.rs`).
    let mut next = 0;
    let mut fingerprints = Vec::new();
    for entry in recent.range(from..).logged(dir)? {
        let (seq, id) = entry.logged(dir)?;
        let (seq, id) = (seq.value(), id.value());
        let bytes = records.get_recent(id, seq, dir)?.ok_or_else(|| {
            Error::Format(dir.join(LOG_FILE), Damage::NoRecord { id: id.to_string() })
        })?;
        let doc = decode(dir, id, &bytes)?;
        fingerprints.push(B::from_u128(doc.fingerprint));
        view.push_recent(id.to_string(), seq);
        next = seq + 1;
    }
    // Built at once, its tables sorted once: inserted one by one, a few
    // thousand recent documents took a fifth of a second to open.
    view.recent = OnlineIndex::build(view.recent.plan().clone(), &fingerprints)?;
    Ok(next)
}

/// Removes segment files the manifest does not name and temporary files:
/// what a writer killed halfway through a flush or a merge left.
fn remove_leftovers(dir: &Path, segments: &[u64]) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else {
            continue;
        };
        let temporary = name.starts_with('.') && name.ends_with(".tmp");
        let stray = segment_number(name).is_some_and(|n| !segments.contains(&n));
        if temporary || stray {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}
