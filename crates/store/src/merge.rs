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
use crate::store::{Store, segment_name};
use crate::view::{LiveSegment, is_set, set};
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
                *inner.merge_error.lock().unwrap_or_else(|e| e.into_inner()) =
                    result.err().map(|e| e.to_string());
                inner.merging.store(false, Ordering::Release);
                store.maybe_merge();
            });
        if spawned.is_err() {
            inner.merging.store(false, Ordering::Release);
        }
    }

    /// Merges every segment into one, now (waiting for a background merge
    /// to end first): a query then reads one segment's tables and the
    /// recent documents'. For a store loaded in bulk and then mostly read.
    ///
    /// # Errors
    ///
    /// As a merge: the segment cannot be written, or the log cannot commit
    /// (the store is unchanged).
    pub fn compact(&self) -> Result<()> {
        let inner = &self.inner;
        while inner.merging.swap(true, Ordering::AcqRel) {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        let (numbers, deleted) = {
            let view = inner.read_view();
            let numbers: Vec<u64> = view.segments.iter().map(|s| s.number).collect();
            (numbers, view.deleted.values().flatten().any(|w| *w != 0))
        };
        // One segment is rewritten only to drop deleted entries.
        let result = if numbers.len() > 1 || (deleted && !numbers.is_empty()) {
            self.merge(&numbers)
        } else {
            Ok(())
        };
        inner.merging.store(false, Ordering::Release);
        result
    }

    /// Merges segments `numbers` into one and swaps it in.
    fn merge(&self, numbers: &[u64]) -> Result<()> {
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
        // Each member entry's place in the merged segment (u32::MAX: dropped).
        let mut moved: HashMap<u64, Vec<u32>> = HashMap::new();
        let (mut fingerprints, mut names) = (Vec::new(), Vec::new());
        for member in &members {
            let gone = deleted_before.get(&member.number);
            let segment = &member.segment;
            let mut places = Vec::with_capacity(segment.len());
            for (pos, &fp) in segment.fingerprints().iter().enumerate() {
                if gone.is_some_and(|bits| is_set(bits, pos as u32)) {
                    places.push(u32::MAX);
                    continue;
                }
                places.push(fingerprints.len() as u32);
                fingerprints.push(fp);
                names.push(segment.name(pos as u32).unwrap_or_default());
            }
            moved.insert(member.number, places);
        }
        let number = {
            let mut counters = inner.lock_writer();
            counters.next_segment += 1;
            counters.next_segment - 1
        };
        let path = dir.join(segment_name(number));
        Segment::write(
            &path,
            plan_for(&inner.settings, &inner.options, fingerprints.len())?,
            &fingerprints,
            &names,
        )?;
        drop((fingerprints, names));
        sync_dir(dir)?;
        let merged = Arc::new(LiveSegment::new(number, Segment::open(&path)?));

        let counters = inner.lock_writer();
        // Entries deleted while the merge ran, at their new places.
        let carried: Vec<u32> = {
            let view = inner.read_view();
            let mut carried = Vec::new();
            for n in numbers {
                let (Some(now), Some(places)) = (view.deleted.get(n), moved.get(n)) else {
                    continue;
                };
                let before = deleted_before.get(n);
                for (pos, &to) in places.iter().enumerate() {
                    let pos = pos as u32;
                    if is_set(now, pos) && !before.is_some_and(|b| is_set(b, pos)) && to != u32::MAX
                    {
                        carried.push(to);
                    }
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
        let txn = inner.db.begin(dir)?;
        {
            let mut deleted = txn.open_table(DELETED).logged(dir)?;
            for &n in numbers {
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
        }
        log::set_segments(&txn, dir, &list, counters.next_segment)?;
        txn.commit().logged(dir)?;
        {
            let mut view = inner.write_view();
            view.segments.retain(|s| !numbers.contains(&s.number));
            view.segments.push(merged);
            for n in numbers {
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

#[cfg(test)]
mod tests {
    use super::pick;

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
}
