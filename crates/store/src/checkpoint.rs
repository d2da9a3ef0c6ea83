//! Checkpoints: the writes acknowledged through the write-ahead log
//! (`wal.rs`) committed to the log (`log.rs`) every so often, many at a
//! time.
//!
//! The writer keeps one transaction of the log open ([`Pending`]): each
//! group commit makes its changes in it, appends them to the write-ahead
//! log and syncs that (one small append), and is acknowledged. The
//! transaction sees every acknowledged write, so the writer's reads (ids
//! taken, stored texts, keys) need nothing else. Every [`CHECKPOINT_AFTER`]
//! or [`CHECKPOINT_BYTES`] of records, and before anything else commits the
//! log (a flush, a merge, a labelled batch), the transaction commits with
//! the next epoch in the manifest (`wal_epoch`), and the write-ahead log
//! is emptied for it.
//!
//! What other threads and processes read from the log is its last
//! checkpoint; the writes since are in [`Unchecked`], which the store's
//! reads consult first: the writer's, filled as it writes, and a reader's,
//! read from the write-ahead log when it opens. After a crash the next
//! writer makes the records of the last epoch again in a transaction and
//! checkpoints them before anything else.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use neardup_index::Bits;
use redb::WriteTransaction;

use crate::change::{self, Change, Deleted, LogTables};
use crate::error::{Damage, Error, Result};
use crate::log::{self, Log, Logged};
use crate::record::StoredDocument;
use crate::store::{Counters, Inner};
use crate::view::{Place, View};
use crate::wal::{self, WAL_FILE, Wal};

/// The longest the writes since a checkpoint wait for the next one, at
/// the first write after it.
pub(crate) const CHECKPOINT_AFTER: Duration = Duration::from_secs(1);

/// The records since a checkpoint that call for the next one.
pub(crate) const CHECKPOINT_BYTES: usize = 4 << 20;

/// The writer's open transaction of the log and its write-ahead log.
pub(crate) struct Pending {
    wal: Wal,
    /// The transaction holding every acknowledged write; `None` after one
    /// was let go (a batch failed halfway through it, or its checkpoint
    /// failed), when the next is made again from `records`.
    txn: Option<WriteTransaction>,
    /// The payloads appended since the last checkpoint.
    records: Vec<Vec<u8>>,
    bytes: usize,
    /// When the last checkpoint was made (or tried).
    since: Instant,
    epoch: u64,
}

impl std::fmt::Debug for Pending {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Pending(epoch {}, {} records)",
            self.epoch,
            self.records.len()
        )
    }
}

impl Pending {
    /// The writer's, at the open of the store in `dir`: the records its
    /// last writer left in the write-ahead log made again and checkpointed.
    pub(crate) fn open(log: &Log, dir: &Path) -> Result<Pending> {
        let manifest = log::read_manifest(&log.begin_read(dir)?, dir)?;
        let mut epoch = manifest.wal_epoch;
        let records = wal::read(dir, epoch)?;
        if !records.is_empty() {
            let txn = log.begin(dir)?;
            let after = replay(&txn, dir, &records)?;
            let next_seq = after.max(manifest.next_seq);
            epoch += 1;
            log::set(&txn, dir, "wal_epoch", &epoch.to_string())?;
            log::set(&txn, dir, "next_seq", &next_seq.to_string())?;
            txn.commit().logged(dir)?;
        }
        Ok(Pending {
            wal: Wal::start(dir, epoch)?,
            txn: None,
            records: Vec::new(),
            bytes: 0,
            since: Instant::now(),
            epoch,
        })
    }

    /// The open transaction, taken to write in: given back by
    /// [`Pending::keep`], [`Pending::append`] or [`Pending::commit`]; when
    /// dropped instead (an error halfway through a batch), the next one is
    /// made again from the records.
    pub(crate) fn take(&mut self, log: &Log, dir: &Path) -> Result<WriteTransaction> {
        if let Some(txn) = self.txn.take() {
            return Ok(txn);
        }
        let txn = log.begin(dir)?;
        replay(&txn, dir, &self.records)?;
        Ok(txn)
    }

    /// Gives back `txn`, unchanged since taken.
    pub(crate) fn keep(&mut self, txn: WriteTransaction) {
        self.txn = Some(txn);
    }

    /// Appends `payload`, the changes made in `txn`, to the write-ahead
    /// log and gives `txn` back: on `Ok` the changes are durable. On an
    /// error `txn` is dropped with them (nothing acknowledged).
    pub(crate) fn append(&mut self, txn: WriteTransaction, payload: Vec<u8>) -> Result<()> {
        self.wal.append(&payload)?;
        self.bytes += payload.len();
        self.records.push(payload);
        self.txn = Some(txn);
        Ok(())
    }

    /// Whether the records call for a checkpoint.
    pub(crate) fn due(&self) -> bool {
        !self.records.is_empty()
            && (self.bytes >= CHECKPOINT_BYTES || self.since.elapsed() >= CHECKPOINT_AFTER)
    }

    /// Whether writes are held since the last checkpoint.
    pub(crate) fn holds_writes(&self) -> bool {
        !self.records.is_empty() || self.txn.is_some()
    }

    /// Commits `txn` (taken from [`Pending::take`]) as a checkpoint, with
    /// `next_seq` and the next epoch in the manifest, and empties the
    /// write-ahead log. On an error nothing is committed and nothing lost:
    /// the records stay in the write-ahead log and the next transaction is
    /// made from them.
    pub(crate) fn commit(
        &mut self,
        txn: WriteTransaction,
        dir: &Path,
        next_seq: u64,
    ) -> Result<()> {
        self.since = Instant::now();
        let epoch = self.epoch + 1;
        log::set(&txn, dir, "wal_epoch", &epoch.to_string())?;
        log::set(&txn, dir, "next_seq", &next_seq.to_string())?;
        txn.commit().logged(dir)?;
        self.epoch = epoch;
        self.records.clear();
        self.bytes = 0;
        // The checkpoint is made whatever follows. A failure to empty the
        // file leaves it refusing records, with the reason, until the store
        // is opened again (its records are of an epoch the open skips).
        let _ = self.wal.reset(epoch);
        Ok(())
    }
}

/// The checkpoints made since the store was opened, and the last one's
/// failure, for [`crate::StoreStats`]: a checkpoint holds the writer, so
/// its time is a tail every write may inherit.
#[derive(Debug, Default)]
pub(crate) struct CheckpointTally {
    made: AtomicU64,
    micros: AtomicU64,
    error: Mutex<Option<String>>,
}

impl CheckpointTally {
    /// Counts a checkpoint tried for `took`, and how it ended.
    fn count<T>(&self, took: Duration, result: &Result<T>) {
        let mut error = self.error.lock().unwrap_or_else(|e| e.into_inner());
        match result {
            Ok(_) => {
                self.made.fetch_add(1, Ordering::Relaxed);
                self.micros
                    .fetch_add(took.as_micros() as u64, Ordering::Relaxed);
                *error = None;
            }
            Err(e) => *error = Some(e.to_string()),
        }
    }

    /// The checkpoints made, their time in all, and the last one's error
    /// (`None` once one works again).
    pub(crate) fn read(&self) -> (u64, Duration, Option<String>) {
        let error = self.error.lock().unwrap_or_else(|e| e.into_inner());
        (
            self.made.load(Ordering::Relaxed),
            Duration::from_micros(self.micros.load(Ordering::Relaxed)),
            error.clone(),
        )
    }
}

/// Makes the changes of `records` in `txn`; returns the sequence number
/// after the last they name.
fn replay(txn: &WriteTransaction, dir: &Path, records: &[Vec<u8>]) -> Result<u64> {
    let mut tables = LogTables::open(txn, dir)?;
    let mut after = 0;
    for (i, payload) in records.iter().enumerate() {
        for change in decode(dir, i, payload)? {
            after = after.max(seq_of(&change) + 1);
            tables.apply(&change, dir)?;
        }
    }
    Ok(after)
}

fn decode(dir: &Path, record: usize, payload: &[u8]) -> Result<Vec<Change>> {
    change::decode(payload)
        .ok_or_else(|| Error::Format(dir.join(WAL_FILE), Damage::WalRecord { record }))
}

fn seq_of(change: &Change) -> u64 {
    match change {
        Change::Insert { seq, .. } => *seq,
        Change::Delete {
            from: Deleted::Recent { seq },
            ..
        } => *seq,
        Change::Delete { .. } => 0,
    }
}

/// The writes since the last checkpoint, as the store's reads see them:
/// each id's record (`None`: deleted) and the short-document keys given
/// (`true`) or taken away (`false`).
#[derive(Debug, Default)]
pub(crate) struct Unchecked {
    records: HashMap<String, Option<Vec<u8>>>,
    keyed: BTreeMap<(u64, String), bool>,
}

impl Unchecked {
    /// Takes in the changes of a write.
    pub(crate) fn note(&mut self, changes: &[Change]) {
        for change in changes {
            match change {
                Change::Insert {
                    id, record, keys, ..
                } => {
                    self.records.insert(id.clone(), Some(record.clone()));
                    for &key in keys {
                        self.keyed.insert((key, id.clone()), true);
                    }
                }
                Change::Delete { id, keys, .. } => {
                    self.records.insert(id.clone(), None);
                    for &key in keys {
                        self.keyed.insert((key, id.clone()), false);
                    }
                }
            }
        }
    }

    /// Forgets them: a checkpoint holds them.
    pub(crate) fn clear(&mut self) {
        self.records.clear();
        self.keyed.clear();
    }

    /// The record of `id` if written since: `Some(None)` when deleted.
    pub(crate) fn record(&self, id: &str) -> Option<Option<&[u8]>> {
        self.records.get(id).map(Option::as_deref)
    }

    /// `ids`, those under `key` as of the checkpoint, as of now.
    pub(crate) fn keyed(&self, key: u64, ids: &mut Vec<String>) {
        if self.keyed.is_empty() {
            return;
        }
        ids.retain(|id| self.keyed.get(&(key, id.clone())) != Some(&false));
        let since = self.keyed.range((key, String::new())..);
        for ((_, id), &there) in since.take_while(|((k, _), _)| *k == key) {
            if there && !ids.contains(id) {
                ids.push(id.clone());
            }
        }
    }
}

/// A reader's view of the store in `dir` brought from its checkpoint of
/// `epoch` to the last acknowledged write: the changes since, from the
/// write-ahead log, made in `view` and noted in `unchecked`.
pub(crate) fn read_since<B: Bits>(
    dir: &Path,
    epoch: u64,
    view: &mut View<B>,
    unchecked: &mut Unchecked,
) -> Result<()> {
    let records = wal::read(dir, epoch)?;
    if records.is_empty() {
        return Ok(());
    }
    // The recent documents by sequence number, to find a deleted one.
    let mut recent: HashMap<u64, u32> = HashMap::new();
    for (pos, doc) in view.recent_docs.iter().enumerate() {
        if let Some((_, seq)) = doc {
            recent.insert(*seq, pos as u32);
        }
    }
    for (i, payload) in records.iter().enumerate() {
        let changes = decode(dir, i, payload)?;
        for change in &changes {
            match change {
                Change::Insert {
                    id, seq, record, ..
                } => {
                    let doc = StoredDocument::decode(record).ok_or_else(|| {
                        Error::Format(dir.join(WAL_FILE), Damage::Record { id: id.clone() })
                    })?;
                    let pos = view.recent.insert(B::from_u128(doc.fingerprint))?;
                    view.push_recent(id.clone(), *seq);
                    recent.insert(*seq, pos);
                }
                Change::Delete { from, .. } => match *from {
                    Deleted::Recent { seq } => {
                        if let Some(pos) = recent.remove(&seq) {
                            view.delete(Place::Recent { pos });
                        }
                    }
                    Deleted::Segment { segment, entry } => view.delete(Place::Segment {
                        segment,
                        pos: entry,
                    }),
                },
            }
        }
        unchecked.note(&changes);
    }
    Ok(())
}

impl<B> Inner<B> {
    /// Runs `change` in the writer's open transaction (under its lock, held
    /// as `counters`), to commit with the next checkpoint: for changes a
    /// crash may lose, since no write-ahead record holds them (nor does the
    /// transaction made again after a failed batch).
    pub(crate) fn in_transaction<T>(
        &self,
        counters: &mut Counters,
        change: impl FnOnce(&WriteTransaction) -> Result<T>,
    ) -> Result<T> {
        let dir = &self.dir;
        let pending = counters.pending(dir)?;
        let txn = pending.take(&self.db, dir)?;
        let out = change(&txn)?;
        pending.keep(txn);
        Ok(out)
    }

    /// Runs `change` in the writer's transaction (under its lock, held as
    /// `counters`) and commits it with every write since the last
    /// checkpoint, as a checkpoint: what commits the log besides writes (a
    /// flush, a merge, a batch's label) commits this way.
    pub(crate) fn checkpoint_with<T>(
        &self,
        counters: &mut Counters,
        change: impl FnOnce(&WriteTransaction) -> Result<T>,
    ) -> Result<T> {
        let started = Instant::now();
        let made = self.checkpoint_now(counters, change);
        self.checkpoints.count(started.elapsed(), &made);
        made
    }

    /// [`Inner::checkpoint_with`], then `then` (the view taking a batch
    /// the checkpoint commits) before lookups see the commit: they wait
    /// from the commit until `then` is done. A lookup reads the log, then
    /// the view (`records.rs`), and one that read the commit with the view
    /// before it would miss an id the batch deleted and inserted again.
    pub(crate) fn checkpoint_then<T>(
        &self,
        counters: &mut Counters,
        change: impl FnOnce(&WriteTransaction) -> Result<T>,
        then: impl FnOnce() -> Result<()>,
    ) -> Result<T> {
        let started = Instant::now();
        let mut unchecked = self.unchecked();
        let made = self.commit(counters, change);
        self.checkpoints.count(started.elapsed(), &made);
        let out = made?;
        then()?;
        unchecked.clear();
        Ok(out)
    }

    fn checkpoint_now<T>(
        &self,
        counters: &mut Counters,
        change: impl FnOnce(&WriteTransaction) -> Result<T>,
    ) -> Result<T> {
        let out = self.commit(counters, change)?;
        self.unchecked().clear();
        Ok(out)
    }

    /// Commits the writer's transaction with `change` made in it.
    fn commit<T>(
        &self,
        counters: &mut Counters,
        change: impl FnOnce(&WriteTransaction) -> Result<T>,
    ) -> Result<T> {
        let dir = &self.dir;
        let next_seq = counters.next_seq;
        let pending = counters.pending(dir)?;
        let txn = pending.take(&self.db, dir)?;
        let out = change(&txn)?;
        pending.commit(txn, dir, next_seq)?;
        Ok(out)
    }
}

impl<B> Drop for Inner<B> {
    /// The writer's last checkpoint: the next open finds the write-ahead
    /// log empty. Had it failed, that open makes the writes again from it.
    fn drop(&mut self) {
        let counters = self.writer.get_mut().unwrap_or_else(|e| e.into_inner());
        let next_seq = counters.next_seq;
        if let Some(pending) = &mut counters.pending
            && pending.holds_writes()
            && let Ok(txn) = pending.take(&self.db, &self.dir)
        {
            let _ = pending.commit(txn, &self.dir, next_seq);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::{Insert, Store, StoreOptions, StoreSettings, Write};

    fn open(dir: &Path) -> Store<u64> {
        let settings = StoreSettings::builder(3)
            .texts(true)
            .short_keys("jaccard:0.8")
            .build();
        let options = StoreOptions::builder()
            .flush_at(10)
            .merge_factor(usize::MAX)
            .build();
        Store::open(dir, Some(&settings), options).unwrap()
    }

    fn insert(i: u64) -> Write<u64> {
        let doc = Insert::new(i.wrapping_mul(0x9e37_79b9_7f4a_7c15), 3)
            .id(format!("d{i}"))
            .text(format!("text {i}"))
            .keys(vec![i % 3]);
        Write::Insert(doc)
    }

    /// The files of the store in `from` copied to `to` as a kill of its
    /// writer would leave them: under the writer's lock, with no flush
    /// running, nothing commits either database meanwhile.
    fn killed_copy(store: &Store<u64>, to: &Path) {
        store.wait_for_flush();
        let _writer = store.inner.lock_writer();
        for entry in std::fs::read_dir(store.dir()).unwrap() {
            let path = entry.unwrap().path();
            std::fs::copy(&path, to.join(path.file_name().unwrap())).unwrap();
        }
    }

    /// What a store holds, as every read sees it: its entries, the texts
    /// of d0..d39, and the ids under each short-document key.
    type Holds = (Vec<(String, u128)>, Vec<Option<String>>, Vec<Vec<String>>);

    fn holds(store: &Store<u64>) -> Holds {
        let mut entries = store.entries();
        entries.sort();
        let texts = (0..40)
            .map(|i| store.get(&format!("d{i}")).unwrap().and_then(|d| d.text))
            .collect();
        let keyed = (0..3)
            .map(|key| {
                let hits = store.query_keys(0, &[key]).unwrap();
                let mut ids: Vec<String> = hits.into_iter().map(|h| h.id).collect();
                ids.sort();
                ids
            })
            .collect();
        (entries, texts, keyed)
    }

    #[test]
    fn a_killed_writers_acknowledged_writes_are_read_back_from_the_write_ahead_log() {
        let dir = tempfile::tempdir().unwrap();
        let store = open(dir.path());
        // A flush (a checkpoint) of d0..d9, then writes held in the
        // write-ahead log alone: inserts, deletes of flushed and recent
        // documents, an id deleted and written again.
        store.write((0..10).map(insert).collect(), None).unwrap();
        store.wait_for_flush();
        let stats = store.stats();
        assert!(stats.checkpoints >= 1 && stats.checkpoint_error.is_none());
        store.write((10..14).map(insert).collect(), None).unwrap();
        let deletes = ["d2", "d11", "d5"].map(|id| Write::Delete(id.into()));
        store.write(deletes.into(), None).unwrap();
        store.write(vec![insert(5), insert(14)], None).unwrap();
        assert!(
            store
                .inner
                .lock_writer()
                .pending
                .as_ref()
                .unwrap()
                .holds_writes()
        );
        let expected = holds(&store);
        assert_eq!(expected.0.len(), 13);
        assert_eq!(expected.1[2], None);
        assert_eq!(expected.1[5].as_deref(), Some("text 5"));

        let killed = tempfile::tempdir().unwrap();
        killed_copy(&store, killed.path());
        drop(store);
        // Its log's last commit is the flush's: the rest is in the
        // write-ahead log, which a reader reads too.
        let reader = Store::<u64>::open_read_only(killed.path()).unwrap();
        assert_eq!(holds(&reader), expected);
        let epoch = |dir: &Path| {
            let log = crate::log::Log::for_reading(dir, &mut None).unwrap();
            let txn = log.begin_read(dir).unwrap();
            crate::log::read_manifest(&txn, dir).unwrap().wal_epoch
        };
        let before = epoch(killed.path());
        assert!(super::wal::read(killed.path(), before).unwrap().len() >= 3);
        let writer = open(killed.path());
        assert_eq!(holds(&writer), expected);
        // Checkpointed at the open: a reader finds it all in the log.
        let after = epoch(killed.path());
        assert!(after > before && super::wal::read(killed.path(), after).unwrap().is_empty());
        assert_eq!(
            holds(&Store::<u64>::open_read_only(killed.path()).unwrap()),
            expected
        );
        // Sequence numbers go on after the last acknowledged write's.
        let last = writer.get("d14").unwrap().unwrap().seq;
        writer.write(vec![insert(20)], None).unwrap();
        assert!(writer.get("d20").unwrap().unwrap().seq > last);
        drop(writer);
        let again = open(killed.path());
        assert_eq!(again.stats().documents, 14);
        assert_eq!(holds(&again).1[..20], expected.1[..20]);
    }
}
