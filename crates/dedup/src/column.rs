//! Per-document arrays that move to a file past their share of the run's
//! budget.
//!
//! A run keeps a few numbers of every document (its [`Record`], the hash
//! of its text, where its sketch is). A hundred million documents make
//! gigabytes of them. A [`Column`] holds its values in memory up to its
//! budget; past it, what it holds is written to an unnamed temporary file
//! in the spill directory and the rest appended there. [`Column::freeze`]
//! then gives a [`Frozen`] slice: the vector, or the file mapped, whose
//! pages are page cache that the system may evict and read back, not the
//! process's own memory. The job reads its columns mostly in document
//! order; the one exception, the sort that finds exact copies, reads the
//! records' fingerprints at random (under a tight memory cap, a next step
//! is to sort packed copies of them instead).
//!
//! [`Record`]: crate::Record

use std::fs::File;
use std::io::{BufWriter, Write};
use std::marker::PhantomData;
use std::ops::Deref;
use std::path::Path;

use bytemuck::Pod;
use memmap2::Mmap;

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
    #[cfg(test)]
    pub(crate) fn spilled(&self) -> bool {
        self.file.is_some()
    }

    /// The values, as a slice from now on.
    ///
    /// # Errors
    ///
    /// The temporary file cannot be written or mapped.
    pub(crate) fn freeze(self) -> Result<Frozen<T>> {
        let Some(out) = self.file else {
            return Ok(Frozen::Held(self.held));
        };
        let spill = self.spill;
        let file = out
            .into_inner()
            .map_err(|e| write_error(spill, e.into_error()))?;
        // SAFETY: the file is this process's own and unnamed, so no other
        // process can change it, and it is not written to again.
        let map = unsafe { Mmap::map(&file) }.map_err(|e| Error::io("map", spill, e))?;
        Ok(Frozen::Mapped {
            map,
            len: self.len,
            of: PhantomData,
        })
    }
}

fn write_error(spill: &Path, e: std::io::Error) -> Error {
    Error::io("write a temporary file in", spill, e)
}

/// A [`Column`]'s values once written: a vector or a mapped file, read as
/// a slice.
pub(crate) enum Frozen<T> {
    Held(Vec<T>),
    Mapped {
        map: Mmap,
        len: usize,
        of: PhantomData<T>,
    },
}

impl<T> std::fmt::Debug for Frozen<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Frozen::Held(held) => write!(f, "Frozen::Held({} values)", held.len()),
            Frozen::Mapped { len, .. } => write!(f, "Frozen::Mapped({len} values)"),
        }
    }
}

impl<T: Pod> Deref for Frozen<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        match self {
            Frozen::Held(held) => held,
            // A map is page-aligned, which is more than any value needs,
            // and holds exactly `len` values.
            Frozen::Mapped { map, len, .. } => &bytemuck::cast_slice(&map[..])[..*len],
        }
    }
}

impl<T: Pod> Default for Frozen<T> {
    fn default() -> Frozen<T> {
        Frozen::Held(Vec::new())
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
