//! Per-document arrays that move to a file past their share of the run's
//! budget.
//!
//! A run keeps a few numbers of every document (its [`Record`], the hash
//! of its text, where its sketch is). A hundred million documents make
//! gigabytes of them. A [`Column`] holds its values in memory up to its
//! budget; past it, what it holds is written to an unnamed temporary file
//! in the spill directory and the rest appended there. [`Column::freeze`]
//! then gives an [`Array`]: the vector, or the file mapped, whose pages are
//! page cache that the system may evict and read back, not the process's
//! own memory. Arrays filled by number rather than in order (the unit of
//! each document, each unit's fingerprint) are made with
//! [`Array::zeroed`], in memory or mapped the same way. The job reads most
//! of them in order; the sort that finds exact copies and the grouping
//! read some at random, which under a tight memory cap costs reads from
//! disk, not memory.
//!
//! [`Record`]: crate::Record

use std::fs::File;
use std::io::{BufWriter, Write};
use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};
use std::path::Path;

use bytemuck::Pod;
use memmap2::MmapMut;

use crate::error::{Error, Result};

/// Values appended one after another, in memory up to a budget, then in a
/// temporary file.
pub(crate) struct Column<'a, T> {
    held: Vec<T>,
    /// Values held before the column moves to a file (at least one).
    capacity: usize,
    spill: &'a Path,
    file: Option<BufWriter<File>>,
    len: usize,
}

impl<'a, T: Pod> Column<'a, T> {
    /// A column that holds up to `budget` bytes in memory and writes the
    /// rest to a temporary file in `spill`.
    pub(crate) fn new(budget: u64, spill: &'a Path) -> Column<'a, T> {
        let size = std::mem::size_of::<T>().max(1) as u64;
        Column {
            held: Vec::new(),
            capacity: usize::try_from(budget / size).unwrap_or(usize::MAX).max(1),
            spill,
            file: None,
            len: 0,
        }
    }

    /// Appends `value`.
    ///
    /// # Errors
    ///
    /// The temporary file cannot be created or written.
    pub(crate) fn push(&mut self, value: T) -> Result<()> {
        self.len += 1;
        if let Some(file) = &mut self.file {
            return file
                .write_all(bytemuck::bytes_of(&value))
                .map_err(|e| write_error(self.spill, e));
        }
        self.held.push(value);
        if self.held.len() >= self.capacity {
            let file = tempfile::tempfile_in(self.spill)
                .map_err(|e| Error::io("create a temporary file in", self.spill, e))?;
            let mut out = BufWriter::with_capacity(1 << 20, file);
            out.write_all(bytemuck::cast_slice(&self.held))
                .map_err(|e| write_error(self.spill, e))?;
            self.held = Vec::new();
            self.file = Some(out);
        }
        Ok(())
    }

    /// The values appended so far.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Whether the column went to a file.
    pub(crate) fn spilled(&self) -> bool {
        self.file.is_some()
    }

    /// The values, as an array from now on.
    ///
    /// # Errors
    ///
    /// The temporary file cannot be written or mapped.
    pub(crate) fn freeze(self) -> Result<Array<T>> {
        let Some(out) = self.file else {
            return Ok(Array::Held(self.held));
        };
        let spill = self.spill;
        let file = out
            .into_inner()
            .map_err(|e| write_error(spill, e.into_error()))?;
        Array::map(&file, self.len, spill)
    }
}

fn write_error(spill: &Path, e: std::io::Error) -> Error {
    Error::io("write a temporary file in", spill, e)
}

/// A fixed number of values, in memory or in a mapped temporary file,
/// read and written as a slice: a [`Column`] once frozen, or
/// [`Array::zeroed`].
pub(crate) enum Array<T> {
    Held(Vec<T>),
    Mapped {
        map: MmapMut,
        len: usize,
        of: PhantomData<T>,
    },
}

impl<T: Pod> Array<T> {
    /// `len` zeroed values, in memory if they take at most `budget` bytes,
    /// else in a temporary file in `spill`.
    ///
    /// # Errors
    ///
    /// The temporary file cannot be made or mapped.
    pub(crate) fn zeroed(len: usize, budget: u64, spill: &Path) -> Result<Array<T>> {
        let bytes = len as u64 * std::mem::size_of::<T>() as u64;
        if bytes <= budget {
            return Ok(Array::Held(vec![T::zeroed(); len]));
        }
        let file = tempfile::tempfile_in(spill)
            .map_err(|e| Error::io("create a temporary file in", spill, e))?;
        // A sparse file: its pages are zeros until written.
        file.set_len(bytes).map_err(|e| write_error(spill, e))?;
        Array::map(&file, len, spill)
    }

    /// Whether the values are in a mapped file rather than in memory.
    pub(crate) fn is_mapped(&self) -> bool {
        matches!(self, Array::Mapped { .. })
    }

    /// The `len` values of `file`, mapped.
    fn map(file: &File, len: usize, spill: &Path) -> Result<Array<T>> {
        // SAFETY: the file is this process's own and unnamed, so no other
        // process can change it, and only this map reads and writes it.
        let map = unsafe { MmapMut::map_mut(file) }.map_err(|e| Error::io("map", spill, e))?;
        Ok(Array::Mapped {
            map,
            len,
            of: PhantomData,
        })
    }
}

impl<T> From<Vec<T>> for Array<T> {
    fn from(held: Vec<T>) -> Array<T> {
        Array::Held(held)
    }
}

impl<T> std::fmt::Debug for Array<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Array::Held(held) => write!(f, "Array::Held({} values)", held.len()),
            Array::Mapped { len, .. } => write!(f, "Array::Mapped({len} values)"),
        }
    }
}

impl<T: Pod> Deref for Array<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        match self {
            Array::Held(held) => held,
            // A map is page-aligned, which is more than any value needs,
            // and holds exactly `len` values.
            Array::Mapped { map, len, .. } => &bytemuck::cast_slice(&map[..])[..*len],
        }
    }
}

impl<T: Pod> DerefMut for Array<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        match self {
            Array::Held(held) => held,
            Array::Mapped { map, len, .. } => &mut bytemuck::cast_slice_mut(&mut map[..])[..*len],
        }
    }
}

impl<T: Pod> Default for Array<T> {
    fn default() -> Array<T> {
        Array::Held(Vec::new())
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        /// Whatever the budget, a column gives back what was pushed, in
        /// order.
        #[test]
        fn a_column_gives_back_what_was_pushed(
            values in prop::collection::vec(any::<(u64, u32, u32)>(), 0..3000),
            budget in prop_oneof![Just(0u64), 1u64..2000, Just(1 << 30)],
        ) {
            let dir = tempfile::tempdir().unwrap();
            let mut column = Column::<[u32; 4]>::new(budget, dir.path());
            let packed: Vec<[u32; 4]> = values
                .iter()
                .map(|&(a, b, c)| [a as u32, (a >> 32) as u32, b, c])
                .collect();
            for &v in &packed {
                column.push(v).unwrap();
            }
            prop_assert_eq!(column.len(), packed.len());
            let spilled = column.spilled();
            let capacity = (budget / 16).max(1) as usize;
            prop_assert_eq!(spilled, packed.len() >= capacity);
            let frozen = column.freeze().unwrap();
            prop_assert_eq!(&frozen[..], &packed[..]);
        }
    }

    #[test]
    fn a_zeroed_array_is_written_and_read_back_in_memory_or_mapped() {
        let dir = tempfile::tempdir().unwrap();
        for budget in [0, 7, 1 << 20] {
            let mut array = Array::<u64>::zeroed(1000, budget, dir.path()).unwrap();
            assert_eq!(array.is_mapped(), budget < 8000);
            assert!(array.iter().all(|&x| x == 0));
            for (i, x) in array.iter_mut().enumerate() {
                *x = i as u64 * 3;
            }
            array.sort_unstable_by_key(|&x| std::cmp::Reverse(x));
            assert_eq!((array[0], array[999], array.len()), (2997, 0, 1000));
        }
        let empty = Array::<u32>::zeroed(0, 0, dir.path()).unwrap();
        assert!(empty.is_empty());
    }

    #[test]
    fn a_column_spills_into_its_directory_only() {
        // A directory that does not exist: only a spilled column needs it.
        let gone = Path::new("/nonexistent/neardup-column");
        let mut held = Column::<u64>::new(1 << 20, gone);
        held.push(7).unwrap();
        assert_eq!(&held.freeze().unwrap()[..], &[7]);
        let mut spilled = Column::<u64>::new(8, gone);
        let err = spilled.push(7).unwrap_err();
        assert!(
            err.to_string().contains("/nonexistent/neardup-column"),
            "{err}"
        );
    }
}
