//! Records sorted by unit, read a block of units at a time: the pairs of a
//! join, written out in any order and sorted (on disk past a budget), are
//! walked once by greedy grouping, in step with the blocks it decides.

use std::iter::Peekable;
use std::path::Path;

use neardup_index::Sorted;

use crate::error::Error;

/// Records `[unit, ...]` in order of unit, from a sort.
pub(crate) struct ByUnit<const N: usize>
where
    [u32; N]: bytemuck::Pod,
{
    records: Peekable<Sorted<[u32; N]>>,
}

impl<const N: usize> ByUnit<N>
where
    [u32; N]: bytemuck::Pod,
{
    /// The records of `sorted`, whose first field is the unit.
    pub(crate) fn new(sorted: Sorted<[u32; N]>) -> ByUnit<N> {
        ByUnit {
            records: sorted.peekable(),
        }
    }

    /// The records of each unit of `block` as `entry` makes them, a list
    /// per unit in order: the records of the units before `block.end` not
    /// taken yet (those of units before `block.start` are let go).
    ///
    /// # Errors
    ///
    /// A run that cannot be read back.
    pub(crate) fn take_lists<T>(
        &mut self,
        block: std::ops::Range<u32>,
        mut entry: impl FnMut([u32; N]) -> T,
    ) -> std::result::Result<Vec<Vec<T>>, neardup_index::Error> {
        let mut lists: Vec<Vec<T>> = (block.start..block.end).map(|_| Vec::new()).collect();
        self.take_before(block.end, |record| {
            if let Some(list) = record[0]
                .checked_sub(block.start)
                .and_then(|i| lists.get_mut(i as usize))
            {
                list.push(entry(record));
            }
        })?;
        Ok(lists)
    }

    /// Hands `each` the records of the units before `end` not taken yet, in
    /// order.
    ///
    /// # Errors
    ///
    /// A run that cannot be read back.
    pub(crate) fn take_before(
        &mut self,
        end: u32,
        mut each: impl FnMut([u32; N]),
    ) -> std::result::Result<(), neardup_index::Error> {
        loop {
            match self.records.peek() {
                Some(Ok(record)) if record[0] < end => {
                    let record = *record;
                    self.records.next();
                    each(record);
                }
                Some(Ok(_)) | None => return Ok(()),
                Some(Err(_)) => {
                    return match self.records.next() {
                        Some(Err(e)) => Err(e),
                        _ => Ok(()),
                    };
                }
            }
        }
    }
}

/// The error of a sort that writes its runs in `dir`, as the job reports
/// it: what it was `doing`, where.
pub(crate) fn sort_error(doing: &'static str, dir: &Path, e: neardup_index::Error) -> Error {
    Error::io(doing, dir, std::io::Error::other(e.to_string()))
}

#[cfg(test)]
mod tests {
    use neardup_index::SpillSort;

    use super::*;

    #[test]
    fn blocks_take_each_record_once_in_order() {
        let dir = tempfile::tempdir().unwrap();
        // Eight records to a run: the records come back merged from runs.
        let mut sort = SpillSort::new(64, dir.path());
        let records: Vec<[u32; 2]> = (0..100u32).rev().map(|i| [i / 3, i]).collect();
        sort.push(&records).unwrap();
        let mut by_unit = ByUnit::new(sort.finish().unwrap());
        let mut taken = Vec::new();
        for end in [0, 5, 5, 20, 40] {
            let mut block = Vec::new();
            by_unit.take_before(end, |r| block.push(r)).unwrap();
            assert!(block.iter().all(|r| r[0] < end));
            taken.extend(block);
        }
        let expected: Vec<[u32; 2]> = (0..100u32).map(|i| [i / 3, i]).collect();
        assert_eq!(taken, expected[..]);
    }
}
