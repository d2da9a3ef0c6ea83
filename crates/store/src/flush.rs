//! Flushing: the recent documents written to a segment of their own, in
//! the background.
//!
//! Once `flush_at` documents are recent, the writer freezes them: a fresh
//! index takes the next writes, and a thread writes the frozen documents'
//! segment with no lock held, as a merge does. Writing it took the writer
//! 30–60 ms when it was done under the lock, and every write of the group
//! commits behind it waited that long. The swap holds the writer lock for
//! one transaction: it marks the frozen documents deleted meanwhile in the
//! new segment, names it in the manifest, and moves the manifest's
//! `recent_from` past the frozen documents, so that the open reads their
//! rows of the log's recent list no more. Before it, the documents file
//! takes the frozen documents' records that have a text or metadata
//! (`cold.rs`); after it, the log drops the frozen documents' records it
//! holds by id (those with a text or metadata), a few hundred at a time,
//! and their recent rows and bare records the same way (removed in the
//! swap, 65,536 rows held the writer 5 ms a flush, and every write behind
//! it waited that long).
//!
//! Until the swap the frozen documents are searched like the recent ones,
//! and their rows in the log's recent list are what a crash leaves: they
//! are read back as recent documents at the next open, and the segment
//! file no manifest names is removed. One flush runs at a time; when the
//! recent documents reach twice `flush_at` before it ends, the writer
//! waits for it (so that they cannot outgrow their memory), and a flush
//! that failed (a full disk) is tried again at the next write that finds
//! `flush_at` recent.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use neardup_index::{Bits, OnlineIndex, Segment};
use redb::WriteTransaction;

use crate::cold;
use crate::error::{Error, Result};
use crate::log::{self, DELETED, Logged};
use crate::options::{plan_for, recent_plan};
use crate::records::IN_DOCUMENTS_FILE;
use crate::store::{Counters, Store, segment_name};
use crate::view::{Frozen, LiveSegment, Names, is_set, new_generation, recent_room, set};
use crate::write::sync_dir;

/// The moved records (step 2 in `cold.rs`), or the flushed documents'
/// recent rows, the log drops in one hold of the writer lock: about 0.4 ms
/// of B-tree changes on a 2-core machine (2,048 held it 1.6 ms at a time,
/// and the writes behind each round waited that long).
const DROP_ROUND: usize = 512;

/// The flushes done since the store opened, and where their time went:
/// a flush must end before twice `flush_at` documents are recent, or the
/// writes wait for it, so its time against the rate of writes says how
/// near that is.
#[derive(Debug, Default)]
pub(crate) struct FlushTally {
    done: AtomicU64,
    micros: AtomicU64,
    records_micros: AtomicU64,
}

impl FlushTally {
    /// Counts a flush that took `took` in all (to its swap), `records` of
    /// it in step 1 of its documents' records' move (`cold.rs`: reading
    /// them from the log, committing those with a text or metadata to the
    /// documents file; the log's rounds of step 2 come after the swap).
    fn count(&self, took: Duration, records: Duration) {
        self.done.fetch_add(1, Ordering::Relaxed);
        self.micros
            .fetch_add(took.as_micros() as u64, Ordering::Relaxed);
        self.records_micros
            .fetch_add(records.as_micros() as u64, Ordering::Relaxed);
    }

    /// The flushes done, their time in all, and the part of it spent in
    /// step 1 of their records' move.
    pub(crate) fn read(&self) -> (u64, Duration, Duration) {
        let micros = |c: &AtomicU64| Duration::from_micros(c.load(Ordering::Relaxed));
        (
            self.done.load(Ordering::Relaxed),
            micros(&self.micros),
            micros(&self.records_micros),
        )
    }
}

/// What a write leaves to do about flushing, once it lets the writer lock
/// go.
pub(crate) enum FlushDue<B> {
    /// Nothing.
    Nothing,
    /// Start flushing these frozen documents.
    Start(Arc<Frozen<B>>),
    /// Wait for the flush under way: the recent documents are twice
    /// `flush_at`.
    Wait,
}

impl<B: Bits> Store<B> {
    /// What to do about flushing after a write, decided under the writer
    /// lock (`counters`): when `flush_at` documents are recent and no flush
    /// runs, they are frozen here.
    pub(crate) fn flush_due(&self, counters: &mut Counters) -> Result<FlushDue<B>> {
        let inner = &self.inner;
        let flush_at = inner.options.flush_at;
        let (recent, frozen) = {
            let view = inner.read_view();
            (view.recent.len(), view.frozen.clone())
        };
        let mut flushing = inner.flushing.lock().unwrap_or_else(|e| e.into_inner());
        if *flushing {
            return Ok(match recent >= flush_at.saturating_mul(2) {
                true => FlushDue::Wait,
                false => FlushDue::Nothing,
            });
        }
        if recent < flush_at {
            return Ok(FlushDue::Nothing);
        }
        // A flush that failed left its documents frozen: tried again.
        if let Some(frozen) = frozen {
            *flushing = true;
            return Ok(FlushDue::Start(frozen));
        }
        // The flush copies the frozen documents' records from a snapshot
        // of the log: it holds them once checkpointed. The write that
        // called is acknowledged already: a failure here is the flush's,
        // tried again at the next write.
        if let Err(e) = inner.checkpoint_with(counters, |_| Ok(())) {
            *inner.flush_error.lock().unwrap_or_else(|e| e.into_inner()) = Some(e.to_string());
            return Ok(FlushDue::Nothing);
        }
        // Made before the view is locked: queries wait for none of it.
        let spare = inner
            .spare_recent
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        let fresh = match spare {
            Some(spare) => spare,
            None => self.empty_recent()?,
        };
        let fresh_names = Names::with_capacity(recent_room(inner.options.flush_at));
        let number = counters.next_segment;
        counters.next_segment += 1;
        let frozen = {
            let mut view = inner.write_view();
            let frozen = Arc::new(Frozen {
                number,
                index: std::mem::replace(&mut view.recent, fresh),
                docs: std::mem::take(&mut view.recent_docs),
                names: std::mem::replace(&mut view.recent_names, fresh_names),
            });
            view.frozen = Some(frozen.clone());
            view.frozen_deleted.clear();
            frozen
        };
        *flushing = true;
        Ok(FlushDue::Start(frozen))
    }

    /// Does what [`Store::flush_due`] said, with the writer lock let go.
    pub(crate) fn flush_as_due(&self, due: FlushDue<B>) -> Result<()> {
        match due {
            FlushDue::Nothing => {}
            FlushDue::Start(frozen) => self.start_flush(frozen),
            FlushDue::Wait => {
                self.wait_for_flush();
                let due = self.flush_due(&mut self.inner.lock_writer())?;
                if let FlushDue::Start(frozen) = due {
                    self.start_flush(frozen);
                }
            }
        }
        Ok(())
    }

    /// Waits for the flush under way, if any, to end: its documents are in
    /// their segment then (or, if it failed, still frozen, and its error in
    /// [`crate::StoreStats::flush_error`]).
    ///
    /// ```
    /// use neardup_store::{Insert, Store, StoreOptions, StoreSettings, Write};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let settings = StoreSettings::builder(3).build();
    /// let options = StoreOptions::builder().flush_at(2).build();
    /// let store = Store::<u64>::open(dir.path(), Some(&settings), options)?;
    /// let writes = (0..2u64).map(|i| Write::Insert(Insert::new(i << 8, 3))).collect();
    /// store.write(writes, None)?;
    /// store.wait_for_flush();
    /// assert_eq!((store.stats().segments, store.stats().recent), (vec![2], 0));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn wait_for_flush(&self) {
        let inner = &self.inner;
        let thread = inner
            .flush_thread
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        if let Some(thread) = thread {
            // Its end is also its handle on the store let go: a caller
            // that drops the store may open it again at once.
            let _ = thread.join();
        }
        let mut flushing = inner.flushing.lock().unwrap_or_else(|e| e.into_inner());
        while *flushing {
            flushing = inner
                .flushed
                .wait(flushing)
                .unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Flushes `frozen` in a thread of its own.
    fn start_flush(&self, frozen: Arc<Frozen<B>>) {
        let store = self.clone();
        let spawned = std::thread::Builder::new()
            .name("neardup-flush".into())
            .spawn(move || {
                let result = store.flush(&frozen);
                let flushed = result.is_ok();
                store.flush_ended(result);
                if flushed {
                    store.maybe_merge();
                }
            });
        match spawned {
            Ok(thread) => {
                *self
                    .inner
                    .flush_thread
                    .lock()
                    .unwrap_or_else(|e| e.into_inner()) = Some(thread);
            }
            Err(e) => self.flush_ended(Err(Error::Io(self.inner.dir.clone(), e))),
        }
    }

    fn flush_ended(&self, result: Result<()>) {
        let inner = &self.inner;
        *inner.flush_error.lock().unwrap_or_else(|e| e.into_inner()) =
            result.err().map(|e| e.to_string());
        *inner.flushing.lock().unwrap_or_else(|e| e.into_inner()) = false;
        inner.flushed.notify_all();
    }

    /// Writes `frozen`'s segment with no lock held, then swaps it in for
    /// them under the writer lock.
    fn flush(&self, frozen: &Frozen<B>) -> Result<()> {
        let started = Instant::now();
        let inner = &self.inner;
        let dir = inner.dir.as_path();
        let mut fingerprints = Vec::with_capacity(frozen.index.len());
        let mut ids = Vec::with_capacity(frozen.index.len());
        // The first sequence number after the frozen documents': every
        // recent row below it is one of theirs (those written since the
        // freeze have later numbers).
        let mut recent_from = None;
        // Each segment entry's place among the frozen documents.
        let mut from = Vec::with_capacity(frozen.index.len());
        for (pos, id, seq, fingerprint) in frozen.documents() {
            fingerprints.push(fingerprint);
            ids.push(id);
            recent_from = recent_from.max(Some(seq + 1));
            from.push(pos);
        }
        // In key order: each leaf of the documents file and of the log is
        // then written once, whatever order the ids came in.
        let mut moved: Vec<(&str, u64)> = frozen
            .documents()
            .map(|(_, id, seq, _)| (id, seq))
            .collect();
        moved.sort_unstable();
        let moving = Instant::now();
        let taken = cold::take_records(&inner.db, &inner.cold, dir, &moved)?;
        let records_took = moving.elapsed();
        let seqs: Vec<u64> = frozen
            .documents()
            .map(
                |(_, _, seq, _)| match taken.in_documents_file.contains(&seq) {
                    true => seq | IN_DOCUMENTS_FILE,
                    false => seq,
                },
            )
            .collect();
        let path = dir.join(segment_name(frozen.number));
        let plan = plan_for(&inner.settings, &inner.options, fingerprints.len())?;
        Segment::write_with_seqs(&path, plan, &fingerprints, &ids, seqs)?;
        drop((fingerprints, ids));
        sync_dir(dir)?;
        let segment = Segment::open(&path)?;

        let mut counters = inner.lock_writer();
        let (carried, numbers) = {
            let view = inner.read_view();
            let carried: Vec<u32> = (0..from.len() as u32)
                .filter(|&entry| is_set(&view.frozen_deleted, from[entry as usize]))
                .collect();
            let numbers: Vec<u64> = view
                .segments
                .iter()
                .map(|s| s.number)
                .chain([frozen.number])
                .collect();
            (carried, numbers)
        };
        let next_segment = counters.next_segment;
        // A checkpoint, which records the next sequence number (the open
        // took it from the last recent row too, which may go now).
        inner.checkpoint_with(&mut counters, |txn| {
            if let Some(from) = recent_from {
                log::set(txn, dir, "recent_from", &from.to_string())?;
            }
            let mut deleted = txn.open_table(DELETED).logged(dir)?;
            for &entry in &carried {
                deleted.insert((frozen.number, entry), ()).logged(dir)?;
            }
            cold::drop_gone(txn, dir, &taken.gone)?;
            log::set_segments(txn, dir, &numbers, next_segment)
        })?;
        let mut view = inner.write_view();
        view.segments
            .push(Arc::new(LiveSegment::new(frozen.number, segment)));
        view.generation = new_generation();
        view.frozen = None;
        view.frozen_deleted.clear();
        if !carried.is_empty() {
            let bits = view.deleted.entry(frozen.number).or_default();
            for entry in carried {
                set(bits, entry);
            }
        }
        drop(view);
        drop(counters);
        inner.flushes.count(started.elapsed(), records_took);
        // Their segment found first from now on (`records.rs`), the
        // records are dropped from the log, committed with the writer's
        // checkpoints. A crash that loses the drops leaves a record in
        // the log and the segment, which is right (the log's is found
        // first, and a delete drops it).
        if !taken.in_log.is_empty() {
            let mut rounds = taken.in_log.chunks(DROP_ROUND).peekable();
            let _ = self.in_rounds(|txn| {
                if let Some(round) = rounds.next() {
                    cold::drop_moved(txn, dir, round)?;
                }
                Ok(rounds.peek().is_some())
            });
        }
        // Read no more since the swap; dropped in the writer's transaction,
        // to commit with its checkpoints. Should a round fail, or a crash
        // lose them, the rows left are dropped after the next flush.
        if let Some(below) = recent_from {
            let _ = self.in_rounds(|txn| {
                Ok(log::drop_recent_rows(txn, dir, below, DROP_ROUND)? == DROP_ROUND)
            });
        }
        // The next freeze's index, made here with no lock held: made by the
        // writer at the freeze, it held every write behind it 0.6 ms. (If
        // it cannot be made, the freeze tries, and says why.)
        if let Ok(spare) = self.empty_recent() {
            *inner.spare_recent.lock().unwrap_or_else(|e| e.into_inner()) = Some(spare);
        }
        Ok(())
    }

    /// An empty index for the recent documents, with room for those that a
    /// flush takes together.
    fn empty_recent(&self) -> Result<OnlineIndex<B>> {
        let inner = &self.inner;
        let mut index = OnlineIndex::new(recent_plan(&inner.settings, &inner.options)?)?;
        index.reserve(recent_room(inner.options.flush_at));
        Ok(index)
    }

    /// Runs `round` in the writer's open transaction while it says there
    /// is more, each time in a short hold of the writer lock of its own
    /// with a pause between: a mutex let go and taken again at once is
    /// rarely the waiting group commit's (std's is not fair), and the
    /// rounds then held it as long as one transaction did.
    fn in_rounds(&self, mut round: impl FnMut(&WriteTransaction) -> Result<bool>) -> Result<()> {
        let inner = &self.inner;
        loop {
            let more = {
                let mut counters = inner.lock_writer();
                inner.in_transaction(&mut counters, &mut round)?
            };
            if !more {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use crate::{Insert, Store, StoreOptions, StoreSettings, Write, Written};

    /// A directory where segment `number`'s temporary file goes, so that
    /// writing it fails (as on a full disk); the segment's name and the
    /// directory.
    pub(crate) fn block_segment(
        dir: &std::path::Path,
        number: u64,
    ) -> (String, std::path::PathBuf) {
        let name = crate::store::segment_name(number);
        let blocker = dir.join(format!(".{name}.{}.tmp", std::process::id()));
        std::fs::create_dir(&blocker).unwrap();
        (name, blocker)
    }

    fn fingerprint(i: u64) -> u64 {
        i.wrapping_mul(0x9e37_79b9_7f4a_7c15)
    }

    fn insert(
        store: &Store<u64>,
        ids: std::ops::Range<u64>,
        fp: impl Fn(u64) -> u64,
    ) -> Vec<Written> {
        let writes = ids
            .map(|i| Write::Insert(Insert::new(fp(i), 3).id(format!("d{i}"))))
            .collect();
        store.write(writes, None).unwrap()
    }

    /// The store in `dir`, as a writer that flushes every four documents
    /// and never merges.
    fn flushing_at_four(dir: &std::path::Path) -> Store<u64> {
        let settings = StoreSettings::builder(3).build();
        let options = StoreOptions::builder()
            .flush_at(4)
            .merge_factor(usize::MAX)
            .build();
        Store::<u64>::open(dir, Some(&settings), options).unwrap()
    }

    fn ids(store: &Store<u64>, i: u64) -> Vec<String> {
        let hits = store.query(fingerprint(i), 0).unwrap();
        hits.into_iter().map(|hit| hit.id).collect()
    }

    #[test]
    fn frozen_documents_are_searched_deleted_and_kept_through_a_failed_flush() {
        let dir = tempfile::tempdir().unwrap();
        let open = || flushing_at_four(dir.path());
        let store = open();
        // The flush of d0..d3 cannot write its segment, as on a full disk.
        let next = store.inner.lock_writer().next_segment;
        let (name, blocker) = block_segment(dir.path(), next);
        insert(&store, 0..4, fingerprint);
        store.wait_for_flush();
        let stats = store.stats();
        assert_eq!((stats.segments.len(), stats.recent), (0, 4));
        assert!(stats.flush_error.is_some_and(|e| e.contains(&name)));
        // Frozen, they are searched, deleted, and found as duplicates.
        assert_eq!(ids(&store, 1), ["d1"]);
        store.write(vec![Write::Delete("d1".into())], None).unwrap();
        assert!(ids(&store, 1).is_empty());
        let written = insert(&store, 4..5, |_| fingerprint(2) ^ 1);
        assert!(
            matches!(&written[0], Written::Inserted { duplicates, .. } if duplicates[0].id == "d2"),
            "{written:?}"
        );
        // A reader beside reads them from the log's recent list.
        let reader = Store::<u64>::open_read_only(dir.path()).unwrap();
        assert_eq!(
            (ids(&reader, 1), ids(&reader, 3)),
            (vec![], vec!["d3".to_string()])
        );
        // The disk has room again: the next write with 4 recent flushes
        // them (d1's entry marked deleted), and the new ones wait their turn.
        std::fs::remove_dir(&blocker).unwrap();
        insert(&store, 5..8, fingerprint);
        store.wait_for_flush();
        let stats = store.stats();
        assert_eq!(
            (stats.segments, stats.deleted, stats.recent, stats.documents),
            (vec![4], 1, 4, 7)
        );
        assert_eq!(stats.flush_error, None);
        let check = |store: &Store<u64>| {
            let mut all = store.entries();
            all.sort();
            let expected: Vec<String> = [0, 2, 3, 4, 5, 6, 7].map(|i| format!("d{i}")).into();
            assert_eq!(
                all.into_iter().map(|(id, _)| id).collect::<Vec<_>>(),
                expected
            );
            assert_eq!(ids(store, 1), Vec::<String>::new());
            assert_eq!(ids(store, 6), ["d6"]);
        };
        check(&store);
        drop(store);
        check(&open());
    }

    /// The rows of the log's recent list, in order.
    fn recent_rows(dir: &std::path::Path) -> Vec<(u64, String)> {
        use redb::ReadableTable;
        let log = crate::log::Log::for_reading(dir, &mut None).unwrap();
        let txn = log.begin_read(dir).unwrap();
        let table = txn.open_table(crate::log::RECENT).unwrap();
        let rows = table.iter().unwrap().map(|row| {
            let (seq, id) = row.unwrap();
            (seq.value(), id.value().to_string())
        });
        rows.collect()
    }

    #[test]
    fn a_flushs_recent_rows_are_read_no_more_once_swapped_and_dropped_after() {
        let dir = tempfile::tempdir().unwrap();
        let open = || flushing_at_four(dir.path());
        let store = open();
        insert(&store, 0..4, fingerprint);
        store.wait_for_flush();
        insert(&store, 4..5, fingerprint);
        drop(store);
        // The flushed documents' rows are dropped; d4's is the one left.
        assert_eq!(recent_rows(dir.path()), [(4, "d4".to_string())]);
        // Rows a crash left before their drop (as a failed round leaves)
        // are below `recent_from`: the open reads them no more.
        {
            let log = crate::log::Log::create(dir.path()).unwrap();
            let txn = log.begin(dir.path()).unwrap();
            let mut table = txn.open_table(crate::log::RECENT).unwrap();
            for i in [1u64, 2] {
                table.insert(i, format!("d{i}").as_str()).unwrap();
            }
            drop(table);
            txn.commit().unwrap();
        }
        let store = open();
        let stats = store.stats();
        assert_eq!((stats.documents, stats.recent), (5, 1));
        assert_eq!(
            (ids(&store, 1), ids(&store, 4)),
            (vec!["d1".to_string()], vec!["d4".to_string()])
        );
        let reader = Store::<u64>::open_read_only(dir.path()).unwrap();
        assert_eq!(
            (reader.stats().documents, ids(&reader, 2)),
            (5, vec!["d2".to_string()])
        );
        drop(reader);
        // The next flush drops them with its own.
        insert(&store, 5..8, fingerprint);
        store.wait_for_flush();
        drop(store);
        assert_eq!(recent_rows(dir.path()), []);
        let store = open();
        assert_eq!((store.stats().documents, store.stats().recent), (8, 0));
        assert_eq!(ids(&store, 2), ["d2"]);
    }
}
