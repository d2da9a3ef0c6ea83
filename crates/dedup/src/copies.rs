//! Exact copies, taken as one document before the join.
//!
//! Crawls hold the same page many times. `m` copies of one text have one
//! fingerprint, and a join over them would report `m²/2` pairs; taken as one
//! *unit*, they cost one fingerprint in the join, and the grouping decides
//! for the unit and then for each copy. Copies are documents with the same
//! fingerprint and the same hash of their text; the fingerprint takes part
//! so that two different texts must collide in both to be taken for copies.

use std::convert::Infallible;
use std::path::Path;

use neardup_index::SpillSort;
use rayon::slice::ParallelSliceMut;

use crate::Fate;
use crate::by_unit::sort_error;
use crate::column::Array;
use crate::error::Result;

/// Documents keyed at a time before they join the sort.
const CHUNK: usize = 1 << 16;

/// The documents of a run gathered into units of exact copies.
///
/// ```
/// use neardup_dedup::{Copies, Fate};
///
/// // Documents 0 and 2 are copies; 1 is another text with the same fingerprint.
/// let copies = Copies::new(|_| 7, &[10, 11, 10], &[0, 1, 2]);
/// assert_eq!(copies.units(), 2);
/// assert_eq!(copies.unit_of(2), copies.unit_of(0));
/// // The unit of 0 and 2 is kept: 0 (first in order) is kept, 2 is its copy.
/// let fates = copies.expand(&[Fate::Kept, Fate::Duplicate { of: 0, distance: 0 }]);
/// assert_eq!(fates[0], Fate::Kept);
/// assert_eq!(fates[2], Fate::Duplicate { of: 0, distance: 0 });
/// assert_eq!(fates[1], Fate::Duplicate { of: 0, distance: 0 });
/// ```
#[derive(Debug)]
pub struct Copies {
    /// The unit of each document.
    unit_of: Array<u32>,
    /// The representative of each unit: its member first in the order
    /// given, the one a unit's fate is decided for.
    representative: Array<u32>,
}

impl Copies {
    /// Units of the documents with equal fingerprints (`fingerprint` of a
    /// document's number) and `text_hashes` (one per document); units are
    /// numbered in the `order` of their representatives, the member of each
    /// first in `order` (a permutation of the documents: input order,
    /// longest first, …).
    pub fn new(fingerprint: impl Fn(u32) -> u128, text_hashes: &[u64], order: &[u32]) -> Copies {
        let mut keyed: Vec<u128> = order
            .iter()
            .enumerate()
            .map(|(rank, &d)| keyed(text_hashes, rank, d))
            .collect();
        keyed.par_sort_unstable();
        let in_memory = &mut |n| Ok::<_, Infallible>(Array::from(vec![0u32; n]));
        let sorted = keyed.into_iter().map(Ok);
        let Ok(copies) = Copies::build(&fingerprint, order, sorted, in_memory);
        copies
    }

    /// [`Copies::new`] with its sort in memory up to twice `budget` bytes
    /// and each of its arrays of a number per document up to `budget`,
    /// else in temporary files in `spill`.
    pub(crate) fn spilling(
        fingerprint: impl Fn(u32) -> u128,
        text_hashes: &[u64],
        order: &[u32],
        budget: u64,
        spill: &Path,
    ) -> Result<Copies> {
        let error = |e| sort_error("sort the documents' text hashes in", spill, e);
        let mut sort = SpillSort::<u128>::new(budget.saturating_mul(2), spill);
        let mut chunk = Vec::with_capacity(CHUNK);
        for (ranks, docs) in order.chunks(CHUNK).enumerate() {
            chunk.clear();
            let first = ranks * CHUNK;
            chunk.extend(
                docs.iter()
                    .enumerate()
                    .map(|(r, &d)| keyed(text_hashes, first + r, d)),
            );
            sort.push(&chunk).map_err(error)?;
        }
        drop(chunk);
        let sorted = sort.finish().map_err(error)?.map(|r| r.map_err(error));
        Copies::build(&fingerprint, order, sorted, &mut |n| {
            Array::zeroed(n, budget, spill)
        })
    }

    /// [`Copies::new`] from the documents' [`keyed`] records in order,
    /// its arrays made by `zeroed`.
    ///
    /// The records are sorted once, reading nothing else, so that the sort
    /// can run on all cores and past memory; fingerprints are read only
    /// where texts' hashes are equal, that is for copies.
    fn build<E>(
        fingerprint: &dyn Fn(u32) -> u128,
        order: &[u32],
        sorted: impl Iterator<Item = std::result::Result<u128, E>>,
        zeroed: &mut dyn FnMut(usize) -> std::result::Result<Array<u32>, E>,
    ) -> std::result::Result<Copies, E> {
        let n = order.len();
        // Each document's representative: itself, until it is found to be
        // a later copy of another.
        let mut unit_of = zeroed(n)?;
        for (d, slot) in unit_of.iter_mut().enumerate() {
            *slot = d as u32;
        }
        let mut copies = 0;
        // One text hash's documents, (rank, document), in rank order.
        let mut group: Vec<(u32, u32)> = Vec::new();
        let mut hash = None;
        let mut settle = |group: &mut Vec<(u32, u32)>, unit_of: &mut Array<u32>| {
            if group.len() > 1 {
                // A stable sort: each fingerprint's first in rank leads.
                group.sort_by_key(|&(_, d)| fingerprint(d));
                let mut leader = group[0];
                for &(rank, d) in &group[1..] {
                    if fingerprint(d) == fingerprint(leader.1) {
                        unit_of[d as usize] = leader.1;
                        copies += 1;
                    } else {
                        leader = (rank, d);
                    }
                }
            }
            group.clear();
        };
        for record in sorted {
            let record = record?;
            let this = (record >> 64) as u64;
            if hash != Some(this) {
                settle(&mut group, &mut unit_of);
                hash = Some(this);
            }
            group.push(((record >> 32) as u32, record as u32));
        }
        settle(&mut group, &mut unit_of);
        drop(group);
        // Number the units in the order of their representatives, each
        // met before its copies: a representative's slot turns into its
        // unit's number, and a copy takes its representative's.
        let mut representative = zeroed(n - copies)?;
        let mut units = 0;
        for &d in order {
            let d = d as usize;
            let leader = unit_of[d];
            if leader as usize == d {
                unit_of[d] = units as u32;
                representative[units] = d as u32;
                units += 1;
            } else {
                unit_of[d] = unit_of[leader as usize];
            }
        }
        Ok(Copies {
            unit_of,
            representative,
        })
    }

    /// The number of units.
    pub fn units(&self) -> usize {
        self.representative.len()
    }

    /// The unit of document `doc`.
    pub fn unit_of(&self, doc: u32) -> u32 {
        self.unit_of[doc as usize]
    }

    /// The representative of unit `unit`.
    pub fn representative(&self, unit: u32) -> u32 {
        self.representative[unit as usize]
    }

    /// The fate of each document from the fate of each unit (whose `of` is a
    /// unit): a representative takes its unit's fate, with the other unit
    /// named by its representative; the other copies of a kept unit are
    /// duplicates of its representative at distance 0, and those of a dropped
    /// unit duplicates of the same document as their representative.
    pub fn expand(&self, unit_fates: &[Fate]) -> Vec<Fate> {
        (0..self.unit_of.len() as u32)
            .map(|d| self.fate_of(d, |u| unit_fates[u as usize]))
            .collect()
    }

    /// Whether the units of the documents went to mapped files.
    pub(crate) fn spilled(&self) -> bool {
        self.unit_of.is_mapped() || self.representative.is_mapped()
    }

    /// The fate of document `doc` as [`Copies::expand`] gives it, by
    /// `unit_fate`, the fate of each unit.
    pub(crate) fn fate_of(&self, doc: u32, unit_fate: impl Fn(u32) -> Fate) -> Fate {
        let u = self.unit_of(doc);
        let representative = self.representative(u);
        let fate = match unit_fate(u) {
            Fate::Duplicate { of, distance } => Fate::Duplicate {
                of: self.representative(of),
                distance,
            },
            other => other,
        };
        match fate {
            _ if representative == doc => fate,
            Fate::Kept => Fate::Duplicate {
                of: representative,
                distance: 0,
            },
            duplicate => duplicate,
        }
    }
}

/// Document `d`'s record in the sort that gathers copies: its text's
/// hash, then its `rank` in the keep order, then its number, so that equal
/// texts come together, the first in keep order first.
fn keyed(text_hashes: &[u64], rank: usize, d: u32) -> u128 {
    let hash = text_hashes.get(d as usize).copied().unwrap_or_default();
    u128::from(hash) << 64 | (rank as u128) << 32 | u128::from(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_follow_the_order() {
        // Longest first, say: 3 is first, then 1, 0, 2.
        let copies = Copies::new(|d| [5, 9, 5, 9][d as usize], &[1, 2, 1, 2], &[3, 1, 0, 2]);
        assert_eq!(copies.units(), 2);
        assert_eq!(copies.unit_of(3), 0);
        assert_eq!(copies.representative(0), 3);
        assert_eq!(copies.unit_of(0), 1);
        assert_eq!(copies.representative(1), 0);
        // Unit 1 (documents 0, 2) is a duplicate of unit 0 at 4 bits.
        let fates = copies.expand(&[Fate::Kept, Fate::Duplicate { of: 0, distance: 4 }]);
        assert_eq!(
            fates,
            [
                Fate::Duplicate { of: 3, distance: 4 },
                Fate::Duplicate { of: 3, distance: 0 },
                Fate::Duplicate { of: 3, distance: 4 },
                Fate::Kept,
            ]
        );
    }

    #[test]
    fn a_duplicate_of_an_indexed_document_stays_one() {
        let copies = Copies::new(|_| 1, &[0, 0], &[0, 1]);
        let outside = Fate::DuplicateOfIndexed {
            entry: 7,
            distance: 2,
        };
        assert_eq!(copies.expand(&[outside]), [outside, outside]);
    }
}
