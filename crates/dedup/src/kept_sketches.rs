//! The verification sketches of kept units, for the units after them: in
//! memory up to a budget, then appended to an unnamed temporary file mapped
//! into memory (page cache, which the system can evict). A run that keeps millions of documents that each had a
//! candidate (templated pages whose texts differ) holds no more than the
//! budget of them.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use memmap2::Mmap;

use crate::error::{Error, Result};

/// What a sketch held in memory costs beyond its words: the box and the
/// map's entry.
const OVERHEAD: u64 = 48;

/// Sketches of kept units, by unit.
pub(crate) struct KeptSketches<'a> {
    held: HashMap<u32, Box<[u64]>>,
    held_bytes: u64,
    budget: u64,
    /// Where spilled sketches go, once the budget is spent.
    spill: &'a Path,
    file: Option<BufWriter<File>>,
    /// The file as of the last [`KeptSketches::sync`].
    map: Option<Mmap>,
    /// Each spilled unit's sketch: where it starts in the file, in words,
    /// and its length.
    spilled: HashMap<u32, (u64, u32)>,
    /// Words written to the file.
    written: u64,
    /// Words written before the last sync (mapped).
    mapped: u64,
}

impl<'a> KeptSketches<'a> {
    /// A store that holds up to `budget` bytes in memory and then writes to
    /// a temporary file in `spill`.
    pub(crate) fn new(budget: u64, spill: &'a Path) -> KeptSketches<'a> {
        KeptSketches {
            held: HashMap::new(),
            held_bytes: 0,
            budget,
            spill,
            file: None,
            map: None,
            spilled: HashMap::new(),
            written: 0,
            mapped: 0,
        }
    }

    /// Keeps the sketch of `unit`; [`KeptSketches::get`] finds it after
    /// the next [`KeptSketches::sync`].
    pub(crate) fn insert(&mut self, unit: u32, sketch: Vec<u64>) -> Result<()> {
        let bytes = sketch.len() as u64 * 8 + OVERHEAD;
        if self.held_bytes + bytes <= self.budget {
            self.held_bytes += bytes;
            self.held.insert(unit, sketch.into_boxed_slice());
            return Ok(());
        }
        let spill = self.spill;
        let error = |e| Error::io("write verification sketches to a file in", spill, e);
        let file = match &mut self.file {
            Some(file) => file,
            None => self
                .file
                .insert(BufWriter::new(tempfile::tempfile_in(spill).map_err(error)?)),
        };
        let len = u32::try_from(sketch.len())
            .map_err(|_| error(std::io::Error::other("a sketch of 2^32 words or more")))?;
        file.write_all(bytemuck::cast_slice(&sketch))
            .map_err(error)?;
        self.spilled.insert(unit, (self.written, len));
        self.written += u64::from(len);
        Ok(())
    }

    /// Makes the sketches inserted so far readable.
    pub(crate) fn sync(&mut self) -> Result<()> {
        let (Some(file), true) = (&mut self.file, self.written > self.mapped) else {
            return Ok(());
        };
        let spill = self.spill;
        file.flush()
            .map_err(|e| Error::io("write verification sketches to a file in", spill, e))?;
        // SAFETY: the file is this process's own and unnamed, so no other
        // process can change it; this process only appends to it, past the
        // end of any map of it.
        let map = unsafe { Mmap::map(file.get_ref()) }.map_err(|e| Error::io("map", spill, e))?;
        // Read at random, a few sketches at a time: no read-ahead.
        #[cfg(unix)]
        map.advise(memmap2::Advice::Random)
            .map_err(|e| Error::io("map", spill, e))?;
        self.map = Some(map);
        self.mapped = self.written;
        Ok(())
    }

    /// The sketch of `unit`, if it was kept (and synced, if spilled).
    pub(crate) fn get(&self, unit: u32) -> Option<&[u64]> {
        if let Some(sketch) = self.held.get(&unit) {
            return Some(sketch);
        }
        let &(start, len) = self.spilled.get(&unit)?;
        if len == 0 {
            return Some(&[]);
        }
        let all: &[u64] = bytemuck::try_cast_slice(self.map.as_deref()?).ok()?;
        all.get(start as usize..start as usize + len as usize)
    }

    /// How many sketches went to the file.
    pub(crate) fn spilled(&self) -> usize {
        self.spilled.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sketches_past_the_budget_come_back_from_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = KeptSketches::new(3 * 8 + OVERHEAD, dir.path());
        store.insert(7, vec![1, 2, 3]).unwrap();
        store.insert(9, vec![4, 5]).unwrap();
        store.insert(11, vec![]).unwrap();
        assert_eq!(store.get(9), None, "not synced yet");
        store.sync().unwrap();
        store.insert(12, vec![6; 1000]).unwrap();
        store.sync().unwrap();
        assert_eq!(store.spilled(), 3);
        assert_eq!(store.get(7), Some(&[1, 2, 3][..]));
        assert_eq!(store.get(9), Some(&[4, 5][..]));
        assert_eq!(store.get(11), Some(&[][..]));
        assert_eq!(store.get(12), Some(&[6; 1000][..]));
        assert_eq!(store.get(8), None);
    }
}
