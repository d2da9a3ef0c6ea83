//! Verification sketches, computed once per document that may be compared
//! and kept in an unnamed temporary file mapped into memory: any number of
//! them take page cache, which the system can evict, not memory of the
//! process, and the file is gone with the process.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::ops::Range;
use std::path::Path;

use memmap2::Mmap;
use rayon::prelude::*;

use crate::column::Array;
use crate::error::{Error, Result};
use crate::progress::{Progress, Stage};
use crate::source::{Revisited, Source};
use crate::verify::Verification;

/// The length of a unit that was not sketched.
const NONE: u32 = u32::MAX;

/// The sketches of some units, by unit.
pub(crate) struct Sketches {
    map: Option<Mmap>,
    /// Where each unit's sketch starts in the file, in `u64`s, and its
    /// length ([`NONE`]: not sketched).
    start: Array<u64>,
    len: Array<u32>,
}

/// What [`Sketches::build`] reads, and where it writes.
pub(crate) struct SketchPass<'a> {
    pub source: &'a dyn Source,
    pub progress: &'a dyn Progress,
    pub verification: Verification,
    /// Documents in the run.
    pub documents: usize,
    pub units: usize,
    /// The document each unit is sketched from, if it is to be.
    pub wanted: &'a (dyn Fn(u32) -> bool + Sync),
    pub unit_of: &'a (dyn Fn(u32) -> u32 + Sync),
    pub spill: &'a Path,
    /// The bytes the run may hold beyond its per-document state (held
    /// sketches take up to half).
    pub memory: u64,
}

impl Sketches {
    /// Reads the source once more and sketches the documents `wanted` asks
    /// for, on all cores of the current rayon pool.
    pub(crate) fn build(pass: &SketchPass) -> Result<Sketches> {
        let mut file = SketchFile::new(pass.spill)?;
        let mut at = Vec::new();
        pass.progress
            .stage(Stage::Verifying, pass.source.total_bytes());
        let now = pass
            .source
            .revisit(pass.progress, pass.wanted, &mut |batch| {
                if pass.progress.cancelled() {
                    return Err(Error::Cancelled);
                }
                for (d, sketch) in sketch_batch(batch, pass.verification) {
                    let (start, len) = file.append(&sketch)?;
                    at.push(((pass.unit_of)(d), start, len));
                }
                Ok(())
            })?;
        pass.progress.finish();
        if now != pass.documents {
            return Err(Error::Changed {
                first: pass.documents,
                now,
            });
        }
        file.finish(pass.units, at, pass.memory / 8)
    }

    /// The sketch of `unit`, if it was made (an empty one for a document
    /// without words).
    pub(crate) fn get(&self, unit: u32) -> Option<&[u64]> {
        let len = *self.len.get(unit as usize)?;
        if len == NONE {
            return None;
        }
        let Some(map) = self.map.as_ref() else {
            return Some(&[]);
        };
        let all: &[u64] = bytemuck::try_cast_slice(&map[..]).ok()?;
        let start = *self.start.get(unit as usize)? as usize;
        all.get(start..start + len as usize)
    }

    /// Asks the system to read the sketches of `units` into memory ahead
    /// of their use. The map is advised for reads at random, which read a
    /// page at a time; a sweep in unit order (the prefix filter's join)
    /// reads the file in order, and a page at a time it would wait on the
    /// disk for each. Only a hint: errors are of no consequence.
    pub(crate) fn read_ahead(&self, units: Range<u32>) {
        let Some(map) = self.map.as_ref() else {
            return;
        };
        let (mut from, mut to) = (u64::MAX, 0);
        for u in units {
            let (Some(&start), Some(&len)) = (self.start.get(u as usize), self.len.get(u as usize))
            else {
                break;
            };
            if len != NONE {
                from = from.min(start);
                to = to.max(start + u64::from(len));
            }
        }
        let size = std::mem::size_of::<u64>() as u64;
        let (from, to) = (from.saturating_mul(size), to.saturating_mul(size));
        #[cfg(unix)]
        if from < to && to <= map.len() as u64 {
            let _ = map.advise_range(
                memmap2::Advice::WillNeed,
                from as usize,
                (to - from) as usize,
            );
        }
    }
}

/// Sketches looked up by unit: [`Sketches`], or in tests a list.
pub(crate) trait UnitSketches: Sync {
    /// The sketch of `unit`, if it has one.
    fn get(&self, unit: u32) -> Option<&[u64]>;

    /// The sketches of `units` will be read soon, in order.
    fn read_ahead(&self, _units: Range<u32>) {}
}

impl UnitSketches for Sketches {
    fn get(&self, unit: u32) -> Option<&[u64]> {
        Sketches::get(self, unit)
    }

    fn read_ahead(&self, units: Range<u32>) {
        Sketches::read_ahead(self, units);
    }
}

#[cfg(test)]
impl UnitSketches for Vec<Vec<u64>> {
    fn get(&self, unit: u32) -> Option<&[u64]> {
        self.as_slice().get(unit as usize).map(Vec::as_slice)
    }
}

/// Sketches written one after another to an unnamed temporary file, then
/// mapped as [`Sketches`] of the units they belong to.
pub(crate) struct SketchFile<'a> {
    out: BufWriter<File>,
    spill: &'a Path,
    /// Words written so far.
    written: u64,
}

impl<'a> SketchFile<'a> {
    /// A new file in the directory `spill`.
    pub(crate) fn new(spill: &'a Path) -> Result<SketchFile<'a>> {
        let file = tempfile::tempfile_in(spill)
            .map_err(|e| Error::io("create a temporary file in", spill, e))?;
        Ok(SketchFile {
            out: BufWriter::new(file),
            spill,
            written: 0,
        })
    }

    /// Writes `sketch`; says where it starts, in words, and its length.
    pub(crate) fn append(&mut self, sketch: &[u64]) -> Result<(u64, u32)> {
        self.out
            .write_all(bytemuck::cast_slice(sketch))
            .map_err(|e| self.write_error(e))?;
        let start = self.written;
        self.written += sketch.len() as u64;
        Ok((start, u32::try_from(sketch.len()).unwrap_or(NONE - 1)))
    }

    /// The sketches of `units` units, `at` giving the unit, start and
    /// length of those written (the others have none). Where each starts
    /// and its length are held in memory up to `budget` bytes each, else in
    /// temporary files.
    pub(crate) fn finish(
        self,
        units: usize,
        at: impl IntoIterator<Item = (u32, u64, u32)>,
        budget: u64,
    ) -> Result<Sketches> {
        let mut start = Array::<u64>::zeroed(units, budget, self.spill)?;
        let mut len = Array::<u32>::zeroed(units, budget, self.spill)?;
        len.fill(NONE);
        for (unit, at, words) in at {
            if let (Some(s), Some(l)) = (start.get_mut(unit as usize), len.get_mut(unit as usize)) {
                (*s, *l) = (at, words);
            }
        }
        let spill = self.spill;
        let file = self.out.into_inner().map_err(|e| {
            Error::io(
                "write verification sketches to a file in",
                spill,
                e.into_error(),
            )
        })?;
        let map = if self.written == 0 {
            None
        } else {
            // SAFETY: the file is this process's own and unnamed, so no other
            // process can change it, and it is not written to again while
            // mapped.
            let map = unsafe { Mmap::map(&file) }.map_err(|e| Error::io("map", spill, e))?;
            // Sketches are read a few at a time, at random: read ahead,
            // a memory cap would spend its pages on neighbours never used.
            #[cfg(unix)]
            map.advise(memmap2::Advice::Random)
                .map_err(|e| Error::io("map", spill, e))?;
            Some(map)
        };
        Ok(Sketches { map, start, len })
    }

    fn write_error(&self, e: std::io::Error) -> Error {
        Error::io("write verification sketches to a file in", self.spill, e)
    }
}

/// The sketches of a batch of documents, with their numbers, in order, on
/// all cores of the current rayon pool.
pub(crate) fn sketch_batch(
    batch: &[Revisited<'_>],
    verification: Verification,
) -> Vec<(u32, Vec<u64>)> {
    batch
        .par_iter()
        .map(|doc| (doc.number, verification.sketch(doc.text)))
        .collect()
}
