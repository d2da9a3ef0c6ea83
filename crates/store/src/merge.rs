//! Merging: segments of about the same size combined into one, in the
//! background, so that the number of segments a query reads stays small
//! (a few per size tier) and no write ever rewrites the whole index.
//!
//! Tiers grow by the merge factor `f`: a flushed segment is in tier 0, and
//! one of `n` entries in tier `log_f(n / flush_at)`. When a tier holds `f`
//! segments they are merged, their deleted entries dropped, so each
//! document is rewritten about `log_f(N / flush_at)` times in all.
//!
//! The merged segment is written with no lock held; only the swap takes
//! the writer lock: deletions made during the merge are carried over to
//! the new segment's entries, and the manifest names the new segment in the
//! same transaction. Replaced files are removed once no query holds them.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use neardup_index::{Bits, Segment};
use redb::ReadableTable;

use crate::error::Result;
use crate::log::{self, DELETED, Logged};
use crate::options::plan_for;
use crate::records::FORMER_SEQ;
use crate::store::{Store, segment_name};
use crate::view::{LiveSegment, is_set, new_generation, set};
use crate::write::sync_dir;

/// The segments to merge next, if a tier is full: the `factor` smallest of
/// the first full tier (the unit test below shows a few).
pub(crate) fn pick(segments: &[(u64, usize)], flush_at: usize, factor: usize) -> Option<Vec<u64>> {
    let factor = factor.max(2);
    let mut tiers: HashMap<u32, Vec<(usize, u64)>> = HashMap::new();
    for &(number, len) in segments {
        tiers
            .entry(tier(len, flush_at, factor))
            .or_default()
            .push((len, number));
    }
    let mut full: Vec<_> = tiers
        .into_iter()
        .filter(|(_, s)| s.len() >= factor)
        .collect();
    full.sort_unstable_by_key(|(t, _)| *t);
    let (_, mut members) = full.into_iter().next()?;
    members.sort_unstable();
    Some(members.into_iter().take(factor).map(|(_, n)| n).collect())
}

fn tier(len: usize, flush_at: usize, factor: usize) -> u32 {
    let mut tier = 0;
    let mut bound = flush_at.max(1).saturating_mul(factor);
    while len >= bound {
        tier += 1;
        bound = bound.saturating_mul(factor);
    }
    tier
}

impl<B: Bits> Store<B> {
    /// Starts a merge in the background when a tier is full and none runs.
    pub(crate) fn maybe_merge(&self) {
        let inner = &self.inner;
        if inner.merging.swap(true, Ordering::AcqRel) {
            return;
        }
        let chosen = {
            let view = inner.read_view();
            let sizes: Vec<(u64, usize)> = view
                .segments
                .iter()
                .map(|s| (s.number, s.segment.len()))
                .collect();
            pick(&sizes, inner.options.flush_at, inner.options.merge_factor)
        };
        let Some(chosen) = chosen else {
            inner.merging.store(false, Ordering::Release);
            return;
        };
        let store = self.clone();
        let spawned = std::thread::Builder::new()
            .name("neardup-merge".into())
            .spawn(move || {
                let result = store.merge(&chosen);
                let inner = &store.inner;
                let failed = result.is_err();
                *inner.merge_error.lock().unwrap_or_else(|e| e.into_inner()) =
                    result.err().map(|e| e.to_string());
                inner.merging.store(false, Ordering::Release);
                // A failed merge waits for the next write: tried again at
                // once, a full disk would keep it failing in a loop.
                if !failed {
                    store.maybe_merge();
                }
            });
        if spawned.is_err() {
            inner.merging.store(false, Ordering::Release);
        }
    }

    /// Merges every segment into one, now (waiting for a background flush
    /// and merge to end first): a query then reads one segment's tables
    /// and the recent documents'. For a store loaded in bulk and then
    /// mostly read. A store of a former layout gets its segments written
    /// in the present format, with the filters of their names that spare
    /// a writer the read of an id's record to know it is new.
    ///
    /// # Errors
    ///
    /// [`crate::Error::ReadOnly`] to a reader; as a merge: the segment
    /// cannot be written, or the log cannot commit (the store is
    /// unchanged).
    pub fn compact(&self) -> Result<()> {
        let inner = &self.inner;
        inner.db.check_writer(&inner.dir)?;
        self.wait_for_flush();
        while inner.merging.swap(true, Ordering::AcqRel) {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        let (numbers, rewrite) = {
            let view = inner.read_view();
            let numbers: Vec<u64> = view.segments.iter().map(|s| s.number).collect();
            let deleted = view.deleted.values().flatten().any(|w| *w != 0);
            (numbers, deleted || view.former_segments() > 0)
        };
        // One segment is rewritten only to drop deleted entries, or to
        // write it in the present format (with the filter of its names).
        let result = if numbers.len() > 1 || (rewrite && !numbers.is_empty()) {
            self.merge(&numbers)
        } else {
            Ok(())
        };
        // Shown in the stats as a background merge's is, until one works.
        *inner.merge_error.lock().unwrap_or_else(|e| e.into_inner()) =
            result.as_ref().err().map(|e| e.to_string());
        inner.merging.store(false, Ordering::Release);
        result
    }

    /// Merges segments `numbers` into one and swaps it in.
    fn merge(&self, numbers: &[u64]) -> Result<()> {
        let started = std::time::Instant::now();
        let merged = self.write_merged(numbers)?;
        self.swap_in(merged)?;
        let took = started.elapsed().as_micros() as u64;
        self.inner.merge_micros.fetch_add(took, Ordering::Relaxed);
        Ok(())
    }

    /// Writes the segment of the entries of segments `numbers` not deleted
    /// now, with no lock held.
    ///
    /// Its memory is the entries' fingerprints (the tables are built from
    /// them) and one table at a time, about 13 bytes per entry for 64-bit
    /// fingerprints: the names are read from the members' files as they
    /// are written, and where an entry went is worked out again at the
    /// swap rather than kept.
    fn write_merged(&self, numbers: &[u64]) -> Result<Merged<B>> {
        let inner = &self.inner;
        let dir = inner.dir.as_path();
        let (members, deleted_before) = {
            let view = inner.read_view();
            let members: Vec<Arc<LiveSegment<B>>> = view
                .segments
                .iter()
                .filter(|s| numbers.contains(&s.number))
                .cloned()
                .collect();
            let deleted: HashMap<u64, Vec<u64>> = numbers
                .iter()
                .filter_map(|n| Some((*n, view.deleted.get(n)?.clone())))
                .collect();
            (members, deleted)
        };
        let kept = |member: &LiveSegment<B>| {
            let gone = deleted_before.get(&member.number);
            (0..member.segment.len() as u32)
                .filter(move |&pos| !gone.is_some_and(|b| is_set(b, pos)))
        };
        // Sized first: a vector that doubles as it grows holds twice the
        // fingerprints for a moment.
        let survivors = members.iter().map(|m| kept(m).count()).sum();
        let mut fingerprints = Vec::with_capacity(survivors);
        let mut starts = Vec::with_capacity(members.len());
        for member in &members {
            starts.push(fingerprints.len() as u32);
            let all = member.segment.fingerprints();
            fingerprints.extend(kept(member).map(|pos| all[pos as usize]));
        }
        let names = members.iter().flat_map(|member| {
            kept(member).map(|pos| member.segment.name(pos).unwrap_or_default())
        });
        // A former format's entries have their records, sequence numbers
        // included, in the documents file (`records.rs`).
        let seqs = members.iter().flat_map(|member| {
            kept(member).map(|pos| member.segment.seq(pos).unwrap_or(FORMER_SEQ))
        });
        let number = {
            let mut counters = inner.lock_writer();
            counters.next_segment += 1;
            counters.next_segment - 1
        };
        let path = dir.join(segment_name(number));
        let plan = plan_for(&inner.settings, &inner.options, fingerprints.len())?;
        Segment::write_with_seqs(&path, plan, &fingerprints, names, seqs)?;
        drop(fingerprints);
        sync_dir(dir)?;
        let segment = Arc::new(LiveSegment::new(number, Segment::open(&path)?));
        Ok(Merged {
            numbers: numbers.to_vec(),
            members,
            starts,
            deleted_before,
            segment,
        })
    }

    /// Swaps `merged` in for its members under the writer lock: the
    /// deletions made while it was written carried to its entries, and the
    /// manifest naming it in one transaction.
    fn swap_in(&self, merged: Merged<B>) -> Result<()> {
        let inner = &self.inner;
        let dir = inner.dir.as_path();
        let Merged {
            numbers,
            members,
            starts,
            deleted_before,
            segment,
        } = merged;
        let number = segment.number;
        let mut counters = inner.lock_writer();
        // Entries deleted while the merge ran, at their new places: the
        // entries a member kept are numbered on from its start.
        let carried: Vec<u32> = {
            let view = inner.read_view();
            let mut carried = Vec::new();
            for (member, &start) in members.iter().zip(&starts) {
                let Some(now) = view.deleted.get(&member.number) else {
                    continue;
                };
                let before = deleted_before.get(&member.number);
                let mut to = start;
                for pos in 0..member.segment.len() as u32 {
                    if before.is_some_and(|b| is_set(b, pos)) {
                        continue;
                    }
                    if is_set(now, pos) {
                        carried.push(to);
                    }
                    to += 1;
                }
            }
            carried
        };
        let list: Vec<u64> = {
            let view = inner.read_view();
            view.segments
                .iter()
                .map(|s| s.number)
                .filter(|n| !numbers.contains(n))
                .chain([number])
                .collect()
        };
        let next_segment = counters.next_segment;
        inner.checkpoint_with(&mut counters, |txn| {
            let mut deleted = txn.open_table(DELETED).logged(dir)?;
            for &n in &numbers {
                let keys: Vec<(u64, u32)> = deleted
                    .range((n, 0)..=(n, u32::MAX))
                    .logged(dir)?
                    .map(|e| e.map(|(k, _)| k.value()))
                    .collect::<std::result::Result<_, _>>()
                    .logged(dir)?;
                for key in keys {
                    deleted.remove(key).logged(dir)?;
                }
            }
            for &pos in &carried {
                deleted.insert((number, pos), ()).logged(dir)?;
            }
            drop(deleted);
            log::set_segments(txn, dir, &list, next_segment)
        })?;
        {
            let mut view = inner.write_view();
            view.segments.retain(|s| !numbers.contains(&s.number));
            view.segments.push(segment);
            view.generation = new_generation();
            for n in &numbers {
                view.deleted.remove(n);
            }
            if !carried.is_empty() {
                let bits = view.deleted.entry(number).or_default();
                for pos in carried {
                    set(bits, pos);
                }
            }
        }
        drop(counters);
        for member in members {
            member.retire();
        }
        inner.merges.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }
}

/// A merged segment written and not yet swapped in.
struct Merged<B> {
    /// The numbers of the segments merged, and the segments.
    numbers: Vec<u64>,
    members: Vec<Arc<LiveSegment<B>>>,
    /// Each member's first entry's place in the merged segment.
    starts: Vec<u32>,
    /// The members' entries deleted when the merge began, which it left out.
    deleted_before: HashMap<u64, Vec<u64>>,
    segment: Arc<LiveSegment<B>>,
}

#[cfg(test)]
mod tests {
    use super::pick;
    use crate::flush::tests::block_segment;
    use crate::{Insert, Store, StoreOptions, StoreSettings, Write};

    #[test]
    fn a_full_tier_is_merged_and_others_wait() {
        assert_eq!(pick(&[(1, 100), (2, 90), (3, 100)], 100, 4), None);
        assert_eq!(
            pick(&[(1, 100), (2, 90), (3, 100), (4, 95), (5, 80)], 100, 4),
            Some(vec![5, 2, 4, 1])
        );
        // 400 entries are a tier up: three of them and one small do not merge.
        assert_eq!(pick(&[(1, 400), (2, 500), (3, 450), (4, 95)], 100, 4), None);
        assert_eq!(
            pick(&[(1, 400), (2, 500), (3, 450), (4, 1000)], 100, 4),
            Some(vec![1, 3, 2, 4])
        );
    }

    #[test]
    fn a_compaction_that_fails_says_so_in_the_stats_until_one_works() {
        let dir = tempfile::tempdir().unwrap();
        let store = store_in(dir.path(), usize::MAX);
        insert_batch(&store, 0);
        insert_batch(&store, 1);
        // A directory where the merged segment's temporary file goes: its
        // writing fails, as on a full disk.
        let next = store.inner.lock_writer().next_segment;
        let (name, blocker) = block_segment(dir.path(), next);
        assert!(store.compact().is_err());
        let stats = store.stats();
        assert_eq!(stats.segments.len(), 2, "nothing swapped in");
        assert!(
            stats.merge_error.is_some_and(|e| e.contains(&name)),
            "{:?}",
            store.stats().merge_error
        );
        std::fs::remove_dir(&blocker).unwrap();
        store.compact().unwrap();
        let stats = store.stats();
        assert_eq!((stats.segments, stats.merge_error), (vec![16], None));
    }

    #[test]
    fn a_failed_background_merge_waits_for_the_next_write() {
        let dir = tempfile::tempdir().unwrap();
        // Segments merged two at a time.
        let store = store_in(dir.path(), 2);
        let write = |batch| insert_batch(&store, batch);
        write(0);
        // The merge after the second segment gets the number after it;
        // its temporary file cannot be made.
        let next = store.inner.lock_writer().next_segment + 1;
        let (_, blocker) = block_segment(dir.path(), next);
        write(1);
        let failed = || store.stats().merge_error.is_some();
        let started = std::time::Instant::now();
        while !failed() && started.elapsed().as_secs() < 10 {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        // Tried again at once, it would take the next number and work.
        std::thread::sleep(std::time::Duration::from_millis(300));
        let stats = store.stats();
        assert!(stats.merge_error.is_some(), "the failure is shown");
        assert_eq!((stats.segments.len(), stats.merges), (2, 0), "no retry yet");
        std::fs::remove_dir(&blocker).unwrap();
        write(2);
        let started = std::time::Instant::now();
        while store.stats().merges == 0 && started.elapsed().as_secs() < 10 {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        let stats = store.stats();
        assert_eq!(
            (stats.merges, stats.merge_error),
            (1, None),
            "merged after the write"
        );
        assert_eq!(stats.documents, 24);
    }

    fn fingerprint(i: u64) -> u64 {
        i.wrapping_mul(0x9e37_79b9_7f4a_7c15)
    }

    /// A store in `dir` that makes a segment every 8 documents and merges
    /// `merge_factor` of them at a time.
    fn store_in(dir: &std::path::Path, merge_factor: usize) -> Store<u64> {
        let settings = StoreSettings::builder(3).build();
        let options = StoreOptions::builder()
            .flush_at(8)
            .merge_factor(merge_factor)
            .build();
        Store::<u64>::open(dir, Some(&settings), options).unwrap()
    }

    /// Inserts documents `d{8 batch}` to `d{8 batch + 7}`: one segment.
    fn insert_batch(store: &Store<u64>, batch: u64) {
        let writes = (batch * 8..batch * 8 + 8)
            .map(|i| Write::Insert(Insert::new(fingerprint(i), 3).id(format!("d{i}"))))
            .collect();
        store.write(writes, None).unwrap();
        store.wait_for_flush();
    }

    #[test]
    fn deletions_made_while_a_merge_runs_are_carried_to_its_entries() {
        let dir = tempfile::tempdir().unwrap();
        // No merge but this test's.
        let open = || store_in(dir.path(), usize::MAX);
        let store = open();
        for batch in 0..3u64 {
            insert_batch(&store, batch);
        }
        let delete = |ids: &[u64]| {
            let writes = ids.iter().map(|i| Write::Delete(format!("d{i}"))).collect();
            store.write(writes, None).unwrap();
        };
        delete(&[1, 9, 10]);
        let numbers: Vec<u64> = store
            .inner
            .read_view()
            .segments
            .iter()
            .map(|s| s.number)
            .collect();
        assert_eq!(numbers.len(), 3);
        let merged = store.write_merged(&numbers).unwrap();
        assert_eq!(merged.segment.segment.len(), 21);
        // Each side of the entries left out before: places move down.
        delete(&[0, 11, 17, 23]);
        store.swap_in(merged).unwrap();
        let gone = [0, 1, 9, 10, 11, 17, 23];
        let check = |store: &Store<u64>| {
            let stats = store.stats();
            assert_eq!(
                (stats.segments, stats.deleted, stats.documents),
                (vec![21], 4, 17)
            );
            for i in 0..24 {
                let found: Vec<String> = store
                    .query(fingerprint(i), 0)
                    .unwrap()
                    .into_iter()
                    .map(|hit| hit.id)
                    .collect();
                let expected = match gone.contains(&i) {
                    true => vec![],
                    false => vec![format!("d{i}")],
                };
                assert_eq!(found, expected, "d{i}");
            }
        };
        check(&store);
        drop(store);
        check(&open());
    }
}
