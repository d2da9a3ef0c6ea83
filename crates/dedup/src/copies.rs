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

use crate::Fate;
use crate::column::Array;
use crate::error::Result;

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
        let in_memory = &mut |n| Ok::<_, Infallible>(Array::from(vec![0u32; n]));
        let Ok(copies) = Copies::build(&fingerprint, text_hashes, order, in_memory);
        copies
    }

    /// [`Copies::new`] with each of its arrays of a number per document
    /// in memory up to `budget` bytes, else in a temporary file in `spill`.
    pub(crate) fn spilling(
        fingerprint: impl Fn(u32) -> u128,
        text_hashes: &[u64],
        order: &[u32],
        budget: u64,
        spill: &Path,
    ) -> Result<Copies> {
        Copies::build(&fingerprint, text_hashes, order, &mut |n| {
            Array::zeroed(n, budget, spill)
        })
    }

    /// [`Copies::new`], its arrays made by `zeroed`.
    fn build<E>(
        fingerprint: &dyn Fn(u32) -> u128,
        text_hashes: &[u64],
        order: &[u32],
        zeroed: &mut dyn FnMut(usize) -> std::result::Result<Array<u32>, E>,
    ) -> std::result::Result<Copies, E> {
        let n = text_hashes.len();
        // Sorting by (fingerprint, hash, rank) puts each unit's members
        // together, its representative first.
        let mut rank = zeroed(n)?;
        rank.fill(u32::MAX);
        for (r, &d) in order.iter().enumerate() {
            if let Some(slot) = rank.get_mut(d as usize) {
                *slot = r as u32;
            }
        }
        let mut sorted = zeroed(n)?;
        for (d, slot) in sorted.iter_mut().enumerate() {
            *slot = d as u32;
        }
        sorted.sort_unstable_by_key(|&d| {
            let i = d as usize;
            (fingerprint(d), text_hashes[i], rank[i], d)
        });
        let mut unit_of = zeroed(n)?;
        // Each unit's first member, at the unit's number: `units` of them.
        let mut representatives = zeroed(n)?;
        let mut units = 0;
        let mut previous: Option<(u128, u64)> = None;
        for &d in sorted.iter() {
            let key = (fingerprint(d), text_hashes[d as usize]);
            if previous != Some(key) {
                representatives[units] = d;
                units += 1;
                previous = Some(key);
            }
            unit_of[d as usize] = units as u32 - 1;
        }
        drop(sorted);
        // Number the units in the order of their representatives.
        let mut by_rank = zeroed(units)?;
        for (u, slot) in by_rank.iter_mut().enumerate() {
            *slot = u as u32;
        }
        by_rank.sort_unstable_by_key(|&u| {
            let d = representatives[u as usize];
            (rank[d as usize], d)
        });
        drop(rank);
        let mut renumber = zeroed(units)?;
        for (new, &old) in by_rank.iter().enumerate() {
            renumber[old as usize] = new as u32;
        }
        for u in unit_of.iter_mut() {
            *u = renumber[*u as usize];
        }
        drop(renumber);
        let mut representative = zeroed(units)?;
        for (slot, &old) in representative.iter_mut().zip(by_rank.iter()) {
            *slot = representatives[old as usize];
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
