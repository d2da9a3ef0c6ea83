//! Verification sketches, computed once per document that may be compared
//! and kept in an unnamed temporary file mapped into memory: any number of
//! them take page cache, which the system can evict, not memory of the
//! process, and the file is gone with the process.

use std::io::{BufWriter, Write};
use std::path::Path;

use memmap2::Mmap;
use rayon::prelude::*;

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
    start: Vec<u64>,
    len: Vec<u32>,
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
    /// The run's memory budget, in bytes.
    pub memory: u64,
}

impl Sketches {
    /// Reads the source once more and sketches the documents `wanted` asks
    /// for, on all cores of the current rayon pool.
    pub(crate) fn build(pass: &SketchPass) -> Result<Sketches> {
        let file = tempfile::tempfile_in(pass.spill)
            .map_err(|e| Error::io("create a temporary file in", pass.spill, e))?;
        let spill_error = |e| Error::io("write verification sketches to a file in", pass.spill, e);
        let mut out = BufWriter::new(&file);
        let mut start = vec![0u64; pass.units];
        let mut len = vec![NONE; pass.units];
        let mut written = 0u64;
        pass.progress
            .stage(Stage::Verifying, pass.source.total_bytes());
        let now = pass
            .source
            .revisit(pass.progress, pass.wanted, &mut |batch| {
                if pass.progress.cancelled() {
                    return Err(Error::Cancelled);
                }
                for (d, sketch) in sketch_batch(batch, pass.verification) {
                    out.write_all(bytemuck::cast_slice(&sketch))
                        .map_err(spill_error)?;
                    let unit = (pass.unit_of)(d) as usize;
                    start[unit] = written;
                    len[unit] = u32::try_from(sketch.len()).unwrap_or(NONE - 1);
                    written += sketch.len() as u64;
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
        out.flush().map_err(spill_error)?;
        drop(out);
        let map = if written == 0 {
            None
        } else {
            // SAFETY: the file is this process's own and unnamed, so no other
            // process can change it, and it is not written to again while
            // mapped.
            Some(unsafe { Mmap::map(&file) }.map_err(|e| Error::io("map", pass.spill, e))?)
        };
        Ok(Sketches { map, start, len })
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
