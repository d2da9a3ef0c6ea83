//! What queries search: the segments on disk, the entries deleted from
//! them, and the recent documents in memory.
//!
//! A segment is immutable; a deletion marks its entry in a bit set, which
//! queries skip and the next merge drops. Recent documents (written since
//! the last flush) sit in an [`OnlineIndex`], numbered in order of writing;
//! those being flushed, frozen, in another ([`Frozen`]) until their
//! segment takes their place.
//!
//! The view also says which ids the documents file surely has no record
//! of ([`View::may_be_in_documents_file`]): a writer asked to store an id,
//! new nearly always for a crawler, then reads no record to know it is
//! free (`records.rs`).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use neardup_index::{Bits, NameHash, Neighbour, OnlineIndex, SEGMENT_FORMAT, Segment, TablePlan};

use crate::error::Result;

/// Where a stored fingerprint lies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Place {
    /// Entry `pos` of segment number `segment`.
    Segment { segment: u64, pos: u32 },
    /// Entry `pos` of the recent documents.
    Recent { pos: u32 },
    /// Entry `pos` of the frozen documents, being flushed.
    Frozen { pos: u32 },
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

/// The recent documents as they were when a flush took them, searched
/// until segment `number` is written from them and takes their place.
/// Never changed: the flush reads it with no lock held, and deletions made
/// meanwhile are marked beside it ([`View::frozen_deleted`]).
#[derive(Debug)]
pub(crate) struct Frozen<B> {
    pub(crate) number: u64,
    pub(crate) index: OnlineIndex<B>,
    pub(crate) docs: Vec<Recent>,
    /// Its documents' places by id, deleted ones too.
    pub(crate) names: Names,
}

/// Recent (or frozen) documents' places by id ([`NameHash::short`]), so
/// that a record kept by sequence number (the log's `bare` table) is found
/// by id (`records.rs`).
#[derive(Debug, Default)]
pub(crate) struct Names {
    places: HashMap<u64, u32>,
    /// Places of live documents whose hash a later one took: two ids of
    /// one 64-bit hash, about 1 in 10¹⁰ at two flushes' worth. Looked
    /// through when `places` does not answer.
    overflow: Vec<u32>,
}

impl Names {
    pub(crate) fn with_capacity(n: usize) -> Names {
        Names {
            places: HashMap::with_capacity(n),
            overflow: Vec::new(),
        }
    }

    /// Adds the document at `pos` of `docs`, whose id has `hash`.
    fn insert(&mut self, hash: u64, pos: u32, docs: &[Recent]) {
        if let Some(before) = self.places.insert(hash, pos)
            && docs.get(before as usize).is_some_and(Option::is_some)
        {
            self.overflow.push(before);
        }
    }

    /// Forgets the document at `pos`, of `hash`, deleted.
    fn remove(&mut self, hash: u64, pos: u32) {
        if self.places.get(&hash) == Some(&pos) {
            self.places.remove(&hash);
        }
    }

    /// Whether a document of `hash` may be among them.
    fn may_hold(&self, hash: u64) -> bool {
        self.places.contains_key(&hash) || !self.overflow.is_empty()
    }

    /// The sequence number of the live document `id` (of `hash`) among
    /// `docs` (`deleted`: those marked deleted beside them), if any.
    fn seq_of(&self, id: &str, hash: u64, docs: &[Recent], deleted: &[u64]) -> Option<u64> {
        let live = |pos: u32| match docs.get(pos as usize)? {
            Some((doc, seq)) if doc == id && !is_set(deleted, pos) => Some(*seq),
            _ => None,
        };
        let placed = self.places.get(&hash).and_then(|&pos| live(pos));
        placed.or_else(|| self.overflow.iter().rev().find_map(|&pos| live(pos)))
    }
}

impl<B: Bits> Frozen<B> {
    /// Its documents (those not deleted before it froze): entry, id,
    /// sequence number and fingerprint, in order.
    pub(crate) fn documents(&self) -> impl Iterator<Item = (u32, &str, u64, B)> + '_ {
        self.docs.iter().enumerate().filter_map(|(pos, doc)| {
            let (id, seq) = doc.as_ref()?;
            let fp = self.index.get(pos as u32)?;
            Some((pos as u32, id.as_str(), *seq, fp))
        })
    }
}

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
    /// The recent documents' places by id: a flush of a former build may
    /// have moved a recent document's record to the documents file before
    /// it stopped (`cold.rs`), and bare records are kept by sequence
    /// number (`records.rs`).
    pub(crate) recent_names: Names,
    /// The documents a flush is writing to a segment, if one is.
    pub(crate) frozen: Option<Arc<Frozen<B>>>,
    /// The frozen documents deleted since they froze: bit `pos`.
    pub(crate) frozen_deleted: Vec<u64>,
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
            recent_names: Names::default(),
            frozen: None,
            frozen_deleted: Vec::new(),
        })
    }

    /// Every stored fingerprint within `k` bits of `query`, with its place.
    pub(crate) fn search(&self, query: B, k: u32) -> Vec<(Neighbour<String>, Place)> {
        let mut found = self.search_segments(query, k);
        self.search_unflushed(query, k, &mut found);
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
            Place::Recent { .. } | Place::Frozen { .. } => false,
        });
        self.search_unflushed(query, k, &mut found);
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

    /// Adds the recent and the frozen fingerprints within `k` bits of
    /// `query` to `found`.
    fn search_unflushed(&self, query: B, k: u32, found: &mut Vec<(Neighbour<String>, Place)>) {
        let recent = (&self.recent, &self.recent_docs[..], &[][..]);
        search_documents(recent, query, k, |pos| Place::Recent { pos }, found);
        if let Some(frozen) = &self.frozen {
            let frozen = (&frozen.index, &frozen.docs[..], &self.frozen_deleted[..]);
            search_documents(frozen, query, k, |pos| Place::Frozen { pos }, found);
        }
    }

    /// Adds a recent document's id and sequence number (its fingerprint
    /// goes in `recent` beside it, at the same place).
    pub(crate) fn push_recent(&mut self, id: String, seq: u64) {
        let pos = self.recent_docs.len() as u32;
        let hash = NameHash::of(&id).short();
        self.recent_names.insert(hash, pos, &self.recent_docs);
        self.recent_docs.push(Some((id, seq)));
    }

    /// The sequence number of the live recent or frozen document `id`
    /// (whose hash is `hash`), if one is.
    pub(crate) fn unflushed_seq(&self, id: &str, hash: &NameHash) -> Option<u64> {
        let hash = hash.short();
        let recent = self.recent_names.seq_of(id, hash, &self.recent_docs, &[]);
        recent.or_else(|| {
            let frozen = self.frozen.as_ref()?;
            frozen
                .names
                .seq_of(id, hash, &frozen.docs, &self.frozen_deleted)
        })
    }

    /// Whether the documents file may hold the record of an id of `hash`
    /// without a segment entry of the present format saying so
    /// (`records.rs`): `false` only when it surely does not. A segment of
    /// a former format may have the id (about 1 in 3,800 ids it does not
    /// hold pass its filter, and every id one of format 1), or a recent or
    /// frozen document has it (a flush of a former build moved records
    /// there before its swap).
    pub(crate) fn may_be_in_documents_file(&self, hash: &NameHash) -> bool {
        let short = hash.short();
        self.recent_names.may_hold(short)
            || self
                .frozen
                .as_ref()
                .is_some_and(|f| f.names.may_hold(short))
            || self
                .segments
                .iter()
                .any(|s| s.segment.format() < SEGMENT_FORMAT && s.segment.may_have_name(hash))
    }

    /// The segments of a former format, whose records are in the documents
    /// file: while any remains, an id their filters pass (every id, in
    /// format 1) is looked up there.
    pub(crate) fn former_segments(&self) -> usize {
        self.segments
            .iter()
            .filter(|s| s.segment.format() < SEGMENT_FORMAT)
            .count()
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
                if let Some(doc) = self.recent_docs.get_mut(pos as usize)
                    && let Some((id, _)) = doc.take()
                {
                    self.recent_names.remove(NameHash::of(&id).short(), pos);
                }
            }
            Place::Frozen { pos } => set(&mut self.frozen_deleted, pos),
        }
    }

    /// The frozen documents not deleted since they froze.
    pub(crate) fn frozen_len(&self) -> usize {
        self.frozen.as_ref().map_or(0, |f| f.index.len()) - count(&self.frozen_deleted)
    }

    /// Stored fingerprints, deleted ones not counted.
    pub(crate) fn len(&self) -> usize {
        let in_segments: usize = self
            .segments
            .iter()
            .map(|s| s.segment.len() - self.deleted.get(&s.number).map_or(0, |b| count(b)))
            .sum();
        in_segments + self.frozen_len() + self.recent.len()
    }
}

/// Adds the fingerprints of `(index, docs, deleted)` within `k` bits of
/// `query` to `found`, each at `place(pos)`.
fn search_documents<B: Bits>(
    (index, docs, deleted): (&OnlineIndex<B>, &[Recent], &[u64]),
    query: B,
    k: u32,
    place: impl Fn(u32) -> Place,
    found: &mut Vec<(Neighbour<String>, Place)>,
) {
    // Nothing is recent after a flush (or in a store loaded in bulk and
    // then read): skip its lookups then.
    if index.is_empty() {
        return;
    }
    for m in index.query(query) {
        if m.distance > k || is_set(deleted, m.id) {
            continue;
        }
        if let Some(Some((id, _))) = docs.get(m.id as usize) {
            let hit = Neighbour {
                distance: m.distance,
                id: id.clone(),
            };
            found.push((hit, place(m.id)));
        }
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
