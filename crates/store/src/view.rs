//! What queries search: the segments on disk, the entries deleted from
//! them, and the recent documents in memory.
//!
//! A segment is immutable; a deletion marks its entry in a bit set, which
//! queries skip and the next merge drops. Recent documents (written since
//! the last flush) sit in an [`OnlineIndex`], numbered in order of writing.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use neardup_index::{Bits, Neighbour, OnlineIndex, Segment, TablePlan};

use crate::error::Result;

/// Where a stored fingerprint lies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Place {
    /// Entry `pos` of segment number `segment`.
    Segment { segment: u64, pos: u32 },
    /// Entry `pos` of the recent documents.
    Recent { pos: u32 },
}

/// A segment file in use; its file goes when the last holder lets go of a
/// segment that a merge replaced.
#[derive(Debug)]
pub(crate) struct LiveSegment<B> {
    pub(crate) number: u64,
    pub(crate) segment: Segment<B>,
    path: PathBuf,
    replaced: AtomicBool,
}

impl<B: Bits> LiveSegment<B> {
    pub(crate) fn new(number: u64, segment: Segment<B>) -> LiveSegment<B> {
        LiveSegment {
            number,
            path: segment.path().to_path_buf(),
            segment,
            replaced: AtomicBool::new(false),
        }
    }
}

impl<B> LiveSegment<B> {
    /// Marks the segment replaced: its file is removed once unused.
    pub(crate) fn retire(&self) {
        self.replaced.store(true, Ordering::Release);
    }
}

impl<B> Drop for LiveSegment<B> {
    fn drop(&mut self) {
        if self.replaced.load(Ordering::Acquire) {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Every view's generations, in every store of the process, come from
/// this one count: a [`crate::Presearch`] made in one store (or before a
/// reopening) never passes for another's.
static GENERATIONS: AtomicU64 = AtomicU64::new(0);

/// A generation no view had before.
pub(crate) fn new_generation() -> u64 {
    GENERATIONS.fetch_add(1, Ordering::Relaxed) + 1
}

/// A recent document: its id and sequence number; `None` once deleted.
pub(crate) type Recent = Option<(String, u64)>;

/// The searchable state of the store.
#[derive(Debug)]
pub(crate) struct View<B> {
    pub(crate) segments: Vec<Arc<LiveSegment<B>>>,
    /// Changed whenever `segments` is ([`new_generation`]): a search of the
    /// segments made under one generation holds under it, deletions aside.
    pub(crate) generation: u64,
    /// Deleted entries of each segment, by segment number: bit `pos`.
    pub(crate) deleted: HashMap<u64, Vec<u64>>,
    pub(crate) recent: OnlineIndex<B>,
    pub(crate) recent_docs: Vec<Recent>,
}

/// The recent documents whose room the writer's index makes before they
/// come: as many as are flushed together, up to [`RESERVED_RECENT`]. With
/// the room made, no insert before the flush regrows the index's tables: a
/// regrowth moves every entry while the writer waits, and every write in
/// the group commit behind it waits too.
pub(crate) fn recent_room(flush_at: usize) -> usize {
    flush_at.min(RESERVED_RECENT)
}

/// The most recent documents whose room is made at once (about 5.3 bytes
/// per table each): a store flushed only past millions of them does not
/// take their memory before it needs it.
const RESERVED_RECENT: usize = 1 << 20;

impl<B: Bits> View<B> {
    pub(crate) fn new(plan: TablePlan) -> Result<View<B>> {
        Ok(View {
            segments: Vec::new(),
            generation: new_generation(),
            deleted: HashMap::new(),
            recent: OnlineIndex::new(plan)?,
            recent_docs: Vec::new(),
        })
    }

    /// Every stored fingerprint within `k` bits of `query`, with its place.
    pub(crate) fn search(&self, query: B, k: u32) -> Vec<(Neighbour<String>, Place)> {
        let mut found = self.search_segments(query, k);
        self.search_recent(query, k, &mut found);
        found.sort_unstable();
        found
    }

    /// [`View::search`], given what [`View::search_segments`] found in the
    /// segments of generation `generation` (deletions made since dropped);
    /// the segments are searched again only when they changed.
    pub(crate) fn search_since(
        &self,
        query: B,
        k: u32,
        generation: u64,
        in_segments: Vec<(Neighbour<String>, Place)>,
    ) -> Vec<(Neighbour<String>, Place)> {
        if generation != self.generation {
            return self.search(query, k);
        }
        let mut found = in_segments;
        found.retain(|(_, place)| match place {
            Place::Segment { segment, pos } => !self
                .deleted
                .get(segment)
                .is_some_and(|bits| is_set(bits, *pos)),
            Place::Recent { .. } => false,
        });
        self.search_recent(query, k, &mut found);
        found.sort_unstable();
        found
    }

    /// The segments' fingerprints within `k` bits of `query` (deleted ones
    /// not), with their places, unsorted.
    pub(crate) fn search_segments(&self, query: B, k: u32) -> Vec<(Neighbour<String>, Place)> {
        let mut found = Vec::new();
        for live in &self.segments {
            let deleted = self.deleted.get(&live.number);
            for m in live.segment.query(query) {
                if m.distance > k || deleted.is_some_and(|bits| is_set(bits, m.id)) {
                    continue;
                }
                if let Some(id) = live.segment.name(m.id) {
                    let hit = Neighbour {
                        distance: m.distance,
                        id: id.to_string(),
                    };
                    let place = Place::Segment {
                        segment: live.number,
                        pos: m.id,
                    };
                    found.push((hit, place));
                }
            }
        }
        found
    }

    /// Adds the recent fingerprints within `k` bits of `query` to `found`.
    fn search_recent(&self, query: B, k: u32, found: &mut Vec<(Neighbour<String>, Place)>) {
        // Nothing is recent after a flush (or in a store loaded in bulk and
        // then read): skip its lookups then.
        let recent = match self.recent.is_empty() {
            true => Vec::new(),
            false => self.recent.query(query),
        };
        for m in recent {
            if m.distance > k {
                continue;
            }
            if let Some(Some((id, _))) = self.recent_docs.get(m.id as usize) {
                let hit = Neighbour {
                    distance: m.distance,
                    id: id.clone(),
                };
                found.push((hit, Place::Recent { pos: m.id }));
            }
        }
    }

    /// Marks the entry at `place` deleted.
    pub(crate) fn delete(&mut self, place: Place) {
        match place {
            Place::Segment { segment, pos } => {
                let bits = self.deleted.entry(segment).or_default();
                set(bits, pos);
            }
            Place::Recent { pos } => {
                self.recent.remove(pos);
                if let Some(doc) = self.recent_docs.get_mut(pos as usize) {
                    *doc = None;
                }
            }
        }
    }

    /// Stored fingerprints, deleted ones not counted.
    pub(crate) fn len(&self) -> usize {
        let in_segments: usize = self
            .segments
            .iter()
            .map(|s| s.segment.len() - self.deleted.get(&s.number).map_or(0, |b| count(b)))
            .sum();
        in_segments + self.recent.len()
    }
}

pub(crate) fn is_set(bits: &[u64], pos: u32) -> bool {
    bits.get(pos as usize / 64)
        .is_some_and(|w| w & (1 << (pos % 64)) != 0)
}

pub(crate) fn set(bits: &mut Vec<u64>, pos: u32) {
    let word = pos as usize / 64;
    if bits.len() <= word {
        bits.resize(word + 1, 0);
    }
    bits[word] |= 1 << (pos % 64);
}

fn count(bits: &[u64]) -> usize {
    bits.iter().map(|w| w.count_ones() as usize).sum()
}
