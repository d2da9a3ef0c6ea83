//! Sorting more records than memory holds: records are gathered up to a
//! budget, sorted on all cores, and written as a sorted run to an unnamed
//! temporary file; reading them back merges the runs (and what is still in
//! memory), so the records come out in order whatever their number.
//!
//! Records are plain bytes ([`bytemuck::Pod`]) ordered by [`Ord`], such as
//! [`Pair`](crate::Pair): a join's pairs, for one, can be far more than the
//! fingerprints they come from.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use bytemuck::Pod;
use rayon::prelude::*;

use crate::error::{Error, Result};

/// Bytes read back from a run at a time, at most: the merge's memory is
/// the number of runs times the chunk, which shares the budget.
const READ_CHUNK_BYTES: usize = 1 << 20;
const MIN_READ_CHUNK_BYTES: usize = 64 << 10;

/// Bytes of records up to which the buffer grows by doubling.
const GROWN_BY_DOUBLING: usize = 8 << 20;

/// A sort under way: [`SpillSort::push`] records, then
/// [`SpillSort::finish`] and read them in order.
///
/// ```
/// use neardup_index::SpillSort;
///
/// let dir = tempfile::tempdir()?;
/// // A budget of 64 bytes: eight u64s in memory, the rest in sorted runs.
/// let mut sort = SpillSort::new(64, dir.path());
/// for chunk in (0..100u64).rev().collect::<Vec<_>>().chunks(7) {
///     sort.push(chunk)?;
/// }
/// let sorted: Vec<u64> = sort.finish()?.collect::<Result<_, _>>()?;
/// assert_eq!(sorted, (0..100).collect::<Vec<_>>());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct SpillSort<T> {
    buffer: Vec<T>,
    /// Records held before a run is written (at least one).
    capacity: usize,
    dir: PathBuf,
    file: Option<BufWriter<File>>,
    /// Each run's first record and length, in records.
    runs: Vec<(u64, u64)>,
    written: u64,
}

impl<T: Pod + Ord + Send + Sync> SpillSort<T> {
    /// A sort that holds up to `budget` bytes of records in memory and
    /// writes its runs to a temporary file in `dir`.
    pub fn new(budget: u64, dir: impl Into<PathBuf>) -> SpillSort<T> {
        let size = std::mem::size_of::<T>().max(1) as u64;
        SpillSort {
            buffer: Vec::new(),
            capacity: usize::try_from(budget / size).unwrap_or(usize::MAX).max(1),
            dir: dir.into(),
            file: None,
            runs: Vec::new(),
            written: 0,
        }
    }

    /// Adds `records`.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when a run cannot be written.
    pub fn push(&mut self, mut records: &[T]) -> Result<()> {
        while !records.is_empty() {
            let room = self.capacity - self.buffer.len();
            let (now, later) = records.split_at(room.min(records.len()));
            // Grown by doubling up to a few megabytes, then at once to the
            // budget: doubling all the way would leave the allocator holding
            // the smaller buffers it copied from, nearly the budget again.
            if self.buffer.capacity() - self.buffer.len() < now.len() {
                let needed = self.buffer.len() + now.len();
                let doubled = (self.buffer.len() * 2).max(needed);
                let target = if doubled * std::mem::size_of::<T>() <= GROWN_BY_DOUBLING {
                    doubled
                } else {
                    self.capacity
                };
                self.buffer.reserve_exact(target - self.buffer.len());
            }
            self.buffer.extend_from_slice(now);
            records = later;
            if self.buffer.len() == self.capacity {
                self.write_run()?;
            }
        }
        Ok(())
    }

    /// Adds `run` as a sorted run of its own, sorted on the calling thread
    /// alone and written at once: for a caller inside a parallel loop that
    /// holds a lock around the sort, where a parallel sort could wait on
    /// work that waits for the lock.
    ///
    /// ```
    /// use neardup_index::SpillSort;
    ///
    /// let dir = tempfile::tempdir()?;
    /// let mut sort = SpillSort::new(1 << 20, dir.path());
    /// sort.push_run(&mut [5u32, 1, 3])?;
    /// sort.push(&[4, 2])?;
    /// let sorted: Vec<u32> = sort.finish()?.collect::<Result<_, _>>()?;
    /// assert_eq!(sorted, [1, 2, 3, 4, 5]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when the run cannot be written.
    pub fn push_run(&mut self, run: &mut [T]) -> Result<()> {
        if run.is_empty() {
            return Ok(());
        }
        run.sort_unstable();
        self.write(run)
    }

    /// Whether runs went to the temporary file: the records outgrew the
    /// budget.
    ///
    /// ```
    /// use neardup_index::SpillSort;
    ///
    /// let dir = tempfile::tempdir()?;
    /// let mut sort = SpillSort::new(16, dir.path());
    /// sort.push(&[1u64])?;
    /// assert!(!sort.spilled());
    /// sort.push(&[2u64, 3])?;
    /// assert!(sort.spilled());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn spilled(&self) -> bool {
        !self.runs.is_empty()
    }

    /// How many records were pushed.
    pub fn len(&self) -> u64 {
        self.written + self.buffer.len() as u64
    }

    /// Whether no record was pushed.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn write_run(&mut self) -> Result<()> {
        let mut buffer = std::mem::take(&mut self.buffer);
        buffer.par_sort_unstable();
        self.write(&buffer)?;
        buffer.clear();
        self.buffer = buffer;
        Ok(())
    }

    /// Appends `run`, sorted, to the runs' file.
    fn write(&mut self, run: &[T]) -> Result<()> {
        let dir = &self.dir;
        let error = |e| Error::Io(dir.clone(), e);
        let file = match &mut self.file {
            Some(file) => file,
            None => self.file.insert(BufWriter::with_capacity(
                READ_CHUNK_BYTES,
                tempfile::tempfile_in(dir).map_err(error)?,
            )),
        };
        file.write_all(bytemuck::cast_slice(run)).map_err(error)?;
        let len = run.len() as u64;
        self.runs.push((self.written, len));
        self.written += len;
        Ok(())
    }

    /// The records in order.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when the runs cannot be written out or opened again;
    /// the records read back may fail too.
    pub fn finish(mut self) -> Result<Sorted<T>> {
        self.buffer.par_sort_unstable();
        let Some(file) = self.file.take() else {
            return Ok(Sorted(Inner::Memory(self.buffer.into_iter())));
        };
        let dir = self.dir;
        let error = |e| Error::Io(dir.clone(), e);
        let file = file.into_inner().map_err(|e| error(e.into_error()))?;
        let size = std::mem::size_of::<T>().max(1);
        // The runs' chunks share the budget; a chunk of at least 64 KB keeps
        // reads long whatever the number of runs.
        let share = self.capacity.saturating_mul(size) / (self.runs.len() + 1);
        let chunk = (share.clamp(MIN_READ_CHUNK_BYTES, READ_CHUNK_BYTES) / size).max(1);
        let mut cursors = Vec::with_capacity(self.runs.len() + 1);
        for &(start, len) in &self.runs {
            cursors.push(Cursor::File {
                at: start * size as u64,
                left: len,
                chunk: Vec::new(),
                next: 0,
            });
        }
        cursors.push(Cursor::Memory(self.buffer.into_iter()));
        let mut merge = Merge {
            heap: BinaryHeap::with_capacity(cursors.len()),
            file,
            cursors,
            chunk,
            dir,
        };
        for i in 0..merge.cursors.len() {
            merge.refill(i)?;
        }
        Ok(Sorted(Inner::Merge(merge)))
    }
}

/// Records in order, from [`SpillSort::finish`].
pub struct Sorted<T>(Inner<T>);

enum Inner<T> {
    /// Every record was in memory.
    Memory(std::vec::IntoIter<T>),
    /// Runs merged.
    Merge(Merge<T>),
}

impl<T: Pod + Ord> Iterator for Sorted<T> {
    type Item = Result<T>;

    fn next(&mut self) -> Option<Result<T>> {
        match &mut self.0 {
            Inner::Memory(records) => records.next().map(Ok),
            Inner::Merge(merge) => merge.next(),
        }
    }
}

/// The merge of sorted runs.
struct Merge<T> {
    /// The next record of each run that has one, least first.
    heap: BinaryHeap<Reverse<(T, usize)>>,
    /// The runs, one after another.
    file: File,
    cursors: Vec<Cursor<T>>,
    chunk: usize,
    dir: PathBuf,
}

enum Cursor<T> {
    File {
        /// Where the run's next chunk starts in the file, in bytes.
        at: u64,
        /// Records of the run not read yet.
        left: u64,
        chunk: Vec<T>,
        next: usize,
    },
    Memory(std::vec::IntoIter<T>),
}

impl<T: Pod + Ord> Merge<T> {
    /// Puts run `i`'s next record on the heap, if it has one.
    fn refill(&mut self, i: usize) -> Result<()> {
        let record = match &mut self.cursors[i] {
            Cursor::Memory(records) => records.next(),
            Cursor::File {
                at,
                left,
                chunk,
                next,
            } => {
                if *next == chunk.len() && *left > 0 {
                    let take = usize::try_from(*left).unwrap_or(usize::MAX).min(self.chunk);
                    chunk.clear();
                    chunk.resize(take, T::zeroed());
                    let bytes: &mut [u8] = bytemuck::cast_slice_mut(chunk);
                    read_at(&mut self.file, *at, bytes, &self.dir)?;
                    *at += bytes.len() as u64;
                    *left -= take as u64;
                    *next = 0;
                }
                let record = chunk.get(*next).copied();
                *next += 1;
                record
            }
        };
        if let Some(record) = record {
            self.heap.push(Reverse((record, i)));
        }
        Ok(())
    }

    fn next(&mut self) -> Option<Result<T>> {
        let Reverse((record, i)) = self.heap.pop()?;
        Some(self.refill(i).map(|()| record))
    }
}

/// Fills `buf` from `file` at byte `at`.
fn read_at(file: &mut File, at: u64, buf: &mut [u8], dir: &Path) -> Result<()> {
    file.seek(SeekFrom::Start(at))
        .and_then(|_| file.read_exact(buf))
        .map_err(|e| Error::Io(dir.to_path_buf(), e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(40))]

        /// Whatever the budget, the records come out sorted, each once.
        #[test]
        fn sorts_like_a_sort_in_memory(
            records in prop::collection::vec((any::<u32>(), 0u32..50), 0..3000),
            budget in 0u64..400,
            chunk in 1usize..500,
        ) {
            let dir = tempfile::tempdir().unwrap();
            let records: Vec<[u32; 2]> = records.iter().map(|&(a, b)| [b, a]).collect();
            let mut sort = SpillSort::new(budget, dir.path());
            for (i, part) in records.chunks(chunk).enumerate() {
                // Some parts as runs of their own.
                if i % 3 == 2 {
                    sort.push_run(&mut part.to_vec()).unwrap();
                } else {
                    sort.push(part).unwrap();
                }
            }
            prop_assert_eq!(sort.len(), records.len() as u64);
            let got: Vec<[u32; 2]> = sort.finish().unwrap().collect::<Result<_>>().unwrap();
            let mut expected = records;
            expected.sort_unstable();
            prop_assert_eq!(got, expected);
            // The runs' file is unnamed: nothing is left in the directory.
            prop_assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        }
    }

    #[test]
    fn a_directory_that_cannot_hold_runs_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing");
        let mut sort = SpillSort::new(8, &missing);
        let err = sort.push(&[3u64, 2, 1]).unwrap_err();
        assert!(err.to_string().contains("missing"), "{err}");
    }
}
