//! What a run gives back: each document's [`Record`] and [`Fate`], and
//! the [`Stats`] of the run.

use crate::column::Array;
use crate::grouping::{Fate, PackedFate};
use crate::progress::Skipped;
use crate::source::Origin;
use crate::why::Why;

/// The line of a record that is a whole file.
pub(crate) const WHOLE: u64 = u64::MAX;

/// What a run keeps of a document: 32 bytes, whatever its size.
///
/// ```
/// use neardup_dedup::{Dedup, Memory, Silent};
///
/// let texts = ["a first text", "and a second one"];
/// let outcome = Dedup::new()?.run(&Memory::new(&texts[..]), &Silent)?;
/// let record = outcome.records()[1];
/// assert_eq!((record.origin().line, record.bytes()), (Some(1), 16));
/// assert_ne!(record.fingerprint(), outcome.records()[0].fingerprint());
/// # Ok::<(), neardup_dedup::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct Record {
    pub(crate) fingerprint: u128,
    pub(crate) line: u64,
    pub(crate) bytes: u32,
    pub(crate) file: u32,
}

// SAFETY: under repr(C), a u128, a u64 and two u32s (32 bytes, aligned to
// 16): no padding, and any bits are a record.
unsafe impl bytemuck::Zeroable for Record {}
// SAFETY: as above; Record is Copy and 'static.
unsafe impl bytemuck::Pod for Record {}

impl Record {
    /// Its fingerprint's bits (the low 64 for 64-bit fingerprints).
    pub fn fingerprint(&self) -> u128 {
        self.fingerprint
    }

    /// Where it came from.
    pub fn origin(&self) -> Origin {
        Origin {
            file: self.file,
            line: (self.line != WHOLE).then_some(self.line),
        }
    }

    /// Its length in bytes (at most 2³² − 1).
    pub fn bytes(&self) -> u32 {
        self.bytes
    }
}

/// What a run counted.
///
/// ```
/// use neardup_dedup::{Dedup, Memory, Silent};
///
/// let texts = ["the same text", "the same text", "another text altogether"];
/// let outcome = Dedup::new()?.run(&Memory::new(&texts[..]), &Silent)?;
/// let stats = outcome.stats();
/// assert_eq!((stats.documents, stats.unique, stats.exact_copies), (3, 2, 1));
/// assert_eq!((stats.k, stats.short_rule), (8, true));
/// # Ok::<(), neardup_dedup::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stats {
    /// Documents read (skipped records not counted).
    pub documents: usize,
    /// Documents kept.
    pub unique: usize,
    /// Documents that are exact copies of another (same text).
    pub exact_copies: usize,
    /// Documents dropped for an indexed one.
    pub dropped_against_index: usize,
    /// Pairs of a document with a kept one within reach that greedy
    /// grouping met, and, for components, the pairs of different groups
    /// that joining them compared.
    pub candidate_pairs: u64,
    /// Greedy: for each distance, the documents dropped at it (exact copies
    /// aside); components: the pairs that joined two groups.
    pub pairs_by_distance: Vec<u64>,
    /// Documents that had a key to rank by ([`Keep::Max`](crate::Keep::Max), [`Keep::Min`](crate::Keep::Min)).
    pub with_key: usize,
    /// The k of the run.
    pub k: u32,
    /// Whether the short-document rule held.
    pub short_rule: bool,
    /// Whether the index run against keeps no texts (made before indexes
    /// kept them), so that its documents were judged by fingerprint alone.
    pub index_by_fingerprint_alone: bool,
}

/// The result of a run: each document's record and fate, in source order.
///
/// ```
/// use neardup_dedup::{Dedup, Fate, Memory, Silent};
///
/// let texts = ["the river rose in the night and the town woke to water",
///              "the river rose in the night and the town woke to water!"];
/// let outcome = Dedup::new()?.run(&Memory::new(&texts[..]), &Silent)?;
/// assert_eq!(outcome.unique(), 1);
/// assert_eq!(outcome.fates().get(1), Some(Fate::Duplicate { of: 0, distance: 0 }));
/// assert_eq!(outcome.skipped().total(), 0);
/// assert_eq!(outcome.into_fates().len(), 2);
/// # Ok::<(), neardup_dedup::Error>(())
/// ```
#[derive(Debug)]
pub struct Outcome {
    pub(crate) records: Array<Record>,
    pub(crate) fates: Array<PackedFate>,
    /// Why each dropped document was dropped ([`Why::pack`]).
    pub(crate) whys: Array<u32>,
    pub(crate) skipped: Skipped,
    pub(crate) stats: Stats,
    pub(crate) indexed_names: std::collections::HashMap<u32, String>,
}

impl Outcome {
    /// Each document's fate, by number.
    pub fn fates(&self) -> Fates<'_> {
        Fates {
            packed: &self.fates[..],
        }
    }

    /// Why document `d` was dropped: how its pair was found, and the
    /// similarity that decided it; `None` for a kept one.
    pub fn why(&self, d: u32) -> Option<Why> {
        self.whys.get(d as usize).copied().and_then(Why::unpack)
    }

    /// Each document's record, by number.
    pub fn records(&self) -> &[Record] {
        &self.records
    }

    /// The number of documents kept.
    pub fn unique(&self) -> usize {
        self.stats.unique
    }

    /// What the run counted.
    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// The records the source skipped as invalid.
    pub fn skipped(&self) -> &Skipped {
        &self.skipped
    }

    /// The name of an indexed document that [`Fate::DuplicateOfIndexed`]
    /// names.
    pub fn indexed_name(&self, entry: u32) -> Option<&str> {
        self.indexed_names.get(&entry).map(String::as_str)
    }

    /// The fates, giving up the rest.
    pub fn into_fates(self) -> Vec<Fate> {
        self.fates().to_vec()
    }
}

/// Each document's [`Fate`], by number: [`Outcome::fates`]. They are held
/// in 8 bytes each, in memory or, past the run's budget, in a temporary
/// file, and read as values.
///
/// ```
/// use neardup_dedup::{Dedup, Fate, Memory, Silent};
///
/// let texts = ["a page about rivers and the towns along them, long enough",
///              "a page about rivers and the towns along them, long enough!",
///              "something else entirely, about bread and the baking of it"];
/// let outcome = Dedup::new()?.run(&Memory::new(&texts[..]), &Silent)?;
/// let fates = outcome.fates();
/// assert_eq!(fates.len(), 3);
/// assert_eq!(fates.get(1).and_then(|f| f.duplicate_of()), Some(0));
/// assert_eq!(fates.get(3), None);
/// assert_eq!(fates.iter().filter(|f| *f == Fate::Kept).count(), 2);
/// assert_eq!(fates.to_vec()[2], Fate::Kept);
/// # Ok::<(), neardup_dedup::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Fates<'a> {
    packed: &'a [PackedFate],
}

impl<'a> Fates<'a> {
    /// The number of documents.
    pub fn len(&self) -> usize {
        self.packed.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.packed.is_empty()
    }

    /// The fate of document `doc`, if there is one.
    pub fn get(&self, doc: usize) -> Option<Fate> {
        self.packed.get(doc).map(|&p| Fate::from(p))
    }

    /// The fates in document order.
    pub fn iter(&self) -> FateIter<'a> {
        FateIter {
            packed: self.packed.iter(),
        }
    }

    /// The fates in a vector.
    pub fn to_vec(&self) -> Vec<Fate> {
        self.iter().collect()
    }

    /// `(kept, dropped)` for each document dropped for one of this run (a
    /// duplicate of an indexed document has no group here), sorted: each
    /// group's members together, in input order, 8 bytes a dropped
    /// document.
    ///
    /// ```
    /// use neardup_dedup::{Dedup, Memory, Silent};
    ///
    /// let texts = ["one text, said once", "a second text here", "one text, said once"];
    /// let outcome = Dedup::new()?.run(&Memory::new(&texts[..]), &Silent)?;
    /// assert_eq!(outcome.fates().members(), [(0, 2)]);
    /// # Ok::<(), neardup_dedup::Error>(())
    /// ```
    pub fn members(&self) -> Vec<(u32, u32)> {
        let mut members: Vec<(u32, u32)> = self
            .iter()
            .enumerate()
            .filter_map(|(d, fate)| Some((fate.duplicate_of()?, d as u32)))
            .collect();
        members.sort_unstable();
        members
    }
}

impl<'a> IntoIterator for Fates<'a> {
    type Item = Fate;
    type IntoIter = FateIter<'a>;

    fn into_iter(self) -> FateIter<'a> {
        self.iter()
    }
}

/// The fates of [`Fates::iter`], in document order.
#[derive(Clone, Debug)]
pub struct FateIter<'a> {
    packed: std::slice::Iter<'a, PackedFate>,
}

impl Iterator for FateIter<'_> {
    type Item = Fate;

    fn next(&mut self) -> Option<Fate> {
        self.packed.next().map(|&p| Fate::from(p))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.packed.size_hint()
    }
}

impl ExactSizeIterator for FateIter<'_> {}

impl PartialEq for Fates<'_> {
    fn eq(&self, other: &Fates<'_>) -> bool {
        self.packed == other.packed
    }
}
