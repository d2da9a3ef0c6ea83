//! Index files: an index saved as one immutable segment file and opened by
//! memory map, so that opening reads the header and checks sums but builds
//! nothing; queries read the tables where they lie in the file.
//!
//! A segment file, all numbers little-endian:
//!
//! ```text
//! header, 64 bytes   magic "NDUPSEG\0", format version u32, width u32,
//!                    k u32, blocks u32, tables u32, number bits u32,
//!                    fingerprints u64, sections u64, reserved u64,
//!                    XXH3-64 of the 56 bytes before
//! directory          per section: offset u64, length u64, XXH3-64 u64;
//!                    then the XXH3-64 of the entries
//! sections           each at a multiple of 64 bytes:
//!                    0: fingerprints (8 or 16 bytes each)
//!                    1: name offsets, u64, one more than fingerprints
//!                    2: names, UTF-8, back to back
//!                    3: the names' filter, 64-byte blocks of eight
//!                       u64 words (see `name_filter.rs`)
//!                    4: sequence numbers, u64, one per fingerprint
//!                    5: the table of names, u32 entry numbers (see
//!                       `name_table.rs`)
//!                    6 and on: each table's slots, u32 (see KeyTable)
//! ```
//!
//! Version 2 had no sequence numbers and no table of names: its tables are
//! sections 4 and on; version 1 had no filter either: its tables are
//! sections 3 and on, and it rules out no name. Both are still read, and
//! give no sequence number and find no entry by name.
//!
//! A file is written to a temporary name, synced and renamed, so a crash
//! leaves either the old file or the whole new one; it is written section
//! by section as it is made (`segment_writer.rs`). Opening checks the
//! magic, the version, the plan, every length against the file's size, and
//! every checksum: a truncated, corrupted or foreign file is refused with an
//! error that says which, never read.

use std::fs::File;
use std::path::{Path, PathBuf};

use memmap2::Mmap;
use neardup_core::Width;
use xxhash_rust::xxh3::xxh3_64;

use crate::bits::Bits;
use crate::error::{Error, Result};
use crate::key_table::KeyTable;
use crate::name_filter::{Block, NameHash, blocks_for, may_contain};
use crate::name_table::{candidates, slots_for};
use crate::plan::TablePlan;
use crate::query::{Neighbour, Tables};

/// The version of the segment format this build writes and reads.
pub const SEGMENT_FORMAT: u32 = 3;

pub(crate) const MAGIC: [u8; 8] = *b"NDUPSEG\0";
pub(crate) const HEADER_LEN: usize = 64;
pub(crate) const ALIGN: usize = 64;
/// The sections before the tables: fingerprints, name offsets, names,
/// the names' filter, sequence numbers and the table of names.
pub(crate) const FIXED_SECTIONS: usize = 6;

/// The section of the names' filter.
pub(crate) const FILTER: usize = 3;
/// The section of the sequence numbers.
pub(crate) const SEQS: usize = 4;
/// The section of the table of names.
pub(crate) const NAME_TABLE: usize = 5;

/// A table with one empty slot, where every lookup ends at once.
const NO_SLOTS: [u32; 1] = [u32::MAX];

/// A saved index, mapped from its file.
///
/// ```
/// use neardup_core::Width;
/// use neardup_index::{Neighbour, Segment, TablePlan};
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("prints.ndx");
/// let plan = TablePlan::pigeonhole(Width::W64, 3)?;
/// Segment::write(&path, plan, &[0xff00u64, 0xff01, 0x1234_5678_9abc_def0], &["a", "b", "c"])?;
/// let segment = Segment::<u64>::open(&path)?;
/// assert_eq!(segment.len(), 3);
/// let near = segment.query(0xff00);
/// assert_eq!(near, [Neighbour { distance: 0, id: 0 }, Neighbour { distance: 1, id: 1 }]);
/// assert_eq!(segment.name(1), Some("b"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Segment<B> {
    path: PathBuf,
    map: Mmap,
    plan: TablePlan,
    masks: Vec<B>,
    id_bits: u32,
    count: usize,
    /// Byte ranges of the sections in the map.
    sections: Vec<(usize, usize)>,
    /// The format it was written in: [`SEGMENT_FORMAT`] or a former one.
    format: u32,
    /// The section of the first table: fewer in a former format.
    tables_from: usize,
}

impl<B: Bits> Segment<B> {
    /// Writes an index of `fingerprints`, named `names` (one each), with
    /// `plan`'s tables to `path`, whole or not at all. It is written as it
    /// is made, one section and one table at a time: beyond `fingerprints`,
    /// it holds one table in memory (about 5.3 bytes per fingerprint), never
    /// the names or every table.
    ///
    /// # Errors
    ///
    /// [`Error::NamesMismatch`] when the names do not match the
    /// fingerprints, [`Error::WidthMismatch`] when the plan is for another
    /// width, [`Error::TooManyFingerprints`] for 2³² − 1 fingerprints or
    /// more, [`Error::Io`] when the file cannot be written.
    pub fn write(
        path: &Path,
        plan: TablePlan,
        fingerprints: &[B],
        names: impl IntoIterator<Item = impl AsRef<str>>,
    ) -> Result<()> {
        let seqs = 0..fingerprints.len() as u64;
        crate::segment_writer::write(path, &plan, fingerprints, names, seqs)
    }

    /// Writes a segment as [`Segment::write`] does, with `seqs` for the
    /// entries' sequence numbers (one each) in place of their numbers: a
    /// store keeps there its order of writes, which its merges carry.
    ///
    /// ```
    /// use neardup_core::Width;
    /// use neardup_index::{Segment, TablePlan};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("prints.ndx");
    /// let plan = TablePlan::pigeonhole(Width::W64, 3)?;
    /// Segment::write_with_seqs(&path, plan, &[1u64, 2], &["a", "b"], [40, 7])?;
    /// let segment = Segment::<u64>::open(&path)?;
    /// assert_eq!((segment.seq(0), segment.seq(1), segment.seq(2)), (Some(40), Some(7), None));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Segment::write`]'s, and [`Error::SeqsMismatch`] when the
    /// sequence numbers do not match the fingerprints.
    pub fn write_with_seqs(
        path: &Path,
        plan: TablePlan,
        fingerprints: &[B],
        names: impl IntoIterator<Item = impl AsRef<str>>,
        seqs: impl IntoIterator<Item = u64>,
    ) -> Result<()> {
        crate::segment_writer::write(path, &plan, fingerprints, names, seqs)
    }

    /// Opens the segment at `path`, checking it whole.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when it cannot be read, [`Error::Format`] naming the
    /// file and what is wrong when it is not a segment of this version and
    /// width, is cut short or fails a checksum.
    pub fn open(path: &Path) -> Result<Segment<B>> {
        let file = File::open(path).map_err(|e| Error::Io(path.to_path_buf(), e))?;
        // SAFETY: the file is mapped read-only; segment files are written
        // under a temporary name and renamed, never changed in place.
        let map = unsafe { Mmap::map(&file) }.map_err(|e| Error::Io(path.to_path_buf(), e))?;
        Segment::checked(path, map)
    }

    /// The segment held in `map`, read from `path`, once every check
    /// passed.
    fn checked(path: &Path, map: Mmap) -> Result<Segment<B>> {
        let bad = |what: String| Error::Format(path.to_path_buf(), what);
        let bytes: &[u8] = &map;
        let header = bytes
            .get(..HEADER_LEN)
            .ok_or_else(|| bad(format!("{} bytes is too short for a header", bytes.len())))?;
        if header[..8] != MAGIC {
            return Err(bad("not a neardup index segment (wrong magic)".into()));
        }
        if u64_at(header, 56) != xxh3_64(&header[..56]) {
            return Err(bad("the header's checksum does not match".into()));
        }
        let version = u32_at(header, 8);
        let tables_from = match version {
            SEGMENT_FORMAT => FIXED_SECTIONS,
            // The formats before, still read: 2 has no sequence numbers
            // and no table of names, 1 no filter of names either.
            1 => FILTER,
            2 => SEQS,
            _ => {
                return Err(bad(format!(
                    "format version {version}; this neardup reads versions 1 \
                     to {SEGMENT_FORMAT}: rebuild the index with it"
                )));
            }
        };
        let width = u32_at(header, 12);
        if width != B::WIDTH.bits() {
            return Err(bad(format!(
                "it holds {width}-bit fingerprints, not {}-bit",
                B::WIDTH.bits()
            )));
        }
        let plan = TablePlan::new(
            Width::from_bits(width).map_err(|e| bad(e.to_string()))?,
            u32_at(header, 16),
            u32_at(header, 20),
        )
        .map_err(|e| bad(e.to_string()))?;
        let (tables, id_bits) = (u32_at(header, 24) as usize, u32_at(header, 28));
        // The writer's own limit: numbers are u32, one value kept free.
        let count = u64_at(header, 32);
        if count >= u64::from(u32::MAX) {
            return Err(bad(format!(
                "{count} fingerprints; a segment holds fewer than 2^32 - 1"
            )));
        }
        let count = count as usize;
        let n_sections = u64_at(header, 40) as usize;
        if tables != plan.tables() || n_sections != tables_from + tables {
            return Err(bad(format!(
                "{tables} tables and {n_sections} sections do not fit its plan"
            )));
        }
        if !(16..=32).contains(&id_bits) {
            return Err(bad(format!("{id_bits}-bit numbers")));
        }
        let directory = bytes
            .get(HEADER_LEN..HEADER_LEN + n_sections * 24 + 8)
            .ok_or_else(|| bad("cut short in its directory".into()))?;
        let (entries, sum) = directory.split_at(n_sections * 24);
        if u64_at(sum, 0) != xxh3_64(entries) {
            return Err(bad("the directory's checksum does not match".into()));
        }
        let mut sections = Vec::with_capacity(n_sections);
        for (i, e) in entries.chunks_exact(24).enumerate() {
            let (start, len) = (u64_at(e, 0) as usize, u64_at(e, 8) as usize);
            let data = start
                .checked_add(len)
                .and_then(|end| bytes.get(start..end))
                .ok_or_else(|| {
                    bad(format!(
                        "section {i} runs past the end: the file is cut short"
                    ))
                })?;
            if start % ALIGN != 0 {
                return Err(bad(format!("section {i} is not aligned")));
            }
            if xxh3_64(data) != u64_at(e, 16) {
                return Err(bad(format!(
                    "section {i} fails its checksum: the file is damaged"
                )));
            }
            sections.push((start, len));
        }
        if sections
            .last()
            .is_some_and(|&(start, len)| start + len != bytes.len())
        {
            return Err(bad(format!(
                "{} bytes where its sections end at {}: the file is cut short or has more",
                bytes.len(),
                sections.last().map_or(0, |&(s, l)| s + l)
            )));
        }
        let width_bytes = B::WIDTH.bits() as usize / 8;
        let fits = sections[0].1 == count * width_bytes
            && sections[1].1 == (count + 1) * 8
            && (tables_from <= FILTER || sections[FILTER].1 == blocks_for(count) * ALIGN)
            && (tables_from <= SEQS
                || (sections[SEQS].1 == count * 8
                    && sections[NAME_TABLE].1 == slots_for(count) * 4))
            && sections[tables_from..].iter().all(|&(start, len)| {
                // A table needs an empty slot, where every lookup ends.
                let slots = bytemuck::try_cast_slice(&bytes[start..start + len]).unwrap_or(&[]);
                KeyTable::from_slots(slots, id_bits).is_some()
            });
        if !fits {
            return Err(bad(
                "its sections do not fit its count of fingerprints".into()
            ));
        }
        let masks = (0..plan.tables())
            .map(|t| B::from_u128(plan.mask(t)))
            .collect();
        let segment = Segment {
            path: path.to_path_buf(),
            map,
            plan,
            masks,
            id_bits,
            count,
            sections,
            format: version,
            tables_from,
        };
        // Names must be valid UTF-8 at offsets that rise to the end.
        let offsets = segment.offsets();
        let rising = offsets.windows(2).all(|w| w[0] <= w[1])
            && offsets.last().copied() == Some(segment.sections[2].1 as u64)
            && std::str::from_utf8(segment.section(2)).is_ok();
        if !rising {
            return Err(bad("its names are damaged".into()));
        }
        Ok(segment)
    }

    fn section(&self, i: usize) -> &[u8] {
        let (start, len) = self.sections[i];
        &self.map[start..start + len]
    }

    fn offsets(&self) -> &[u64] {
        bytemuck::try_cast_slice(self.section(1)).unwrap_or(&[])
    }

    /// The fingerprints, by number.
    pub fn fingerprints(&self) -> &[B] {
        bytemuck::try_cast_slice(self.section(0)).unwrap_or(&[])
    }

    /// The name of fingerprint `id`.
    pub fn name(&self, id: u32) -> Option<&str> {
        let offsets = self.offsets();
        let (start, end) = (*offsets.get(id as usize)?, *offsets.get(id as usize + 1)?);
        std::str::from_utf8(self.section(2).get(start as usize..end as usize)?).ok()
    }

    /// Whether a name of `hash` may be among the segment's: `false` only
    /// when none is (a segment of format 1, with no filter, may hold
    /// any). About 1 in 3,800 names it does not hold passes.
    ///
    /// ```
    /// use neardup_core::Width;
    /// use neardup_index::{NameHash, Segment, TablePlan};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("prints.ndx");
    /// let plan = TablePlan::pigeonhole(Width::W64, 3)?;
    /// Segment::write(&path, plan, &[1u64, 2], &["a", "b"])?;
    /// let segment = Segment::<u64>::open(&path)?;
    /// assert!(segment.may_have_name(&NameHash::of("a")));
    /// assert!(!segment.may_have_name(&NameHash::of("c")));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn may_have_name(&self, hash: &NameHash) -> bool {
        if self.tables_from <= FILTER {
            return true;
        }
        // Checked at open: a whole number of aligned blocks.
        let blocks: &[Block] = bytemuck::try_cast_slice(self.section(FILTER)).unwrap_or(&[]);
        may_contain(blocks, hash)
    }

    /// The sequence number of entry `id`: `None` past the last entry, and
    /// in a segment of a former format, which has none.
    pub fn seq(&self, id: u32) -> Option<u64> {
        if self.tables_from <= SEQS {
            return None;
        }
        let seqs: &[u64] = bytemuck::try_cast_slice(self.section(SEQS)).unwrap_or(&[]);
        seqs.get(id as usize).copied()
    }

    /// The entries named `name`, whose hash is `hash` (hashed once by a
    /// caller that looks in many segments, as for
    /// [`Segment::may_have_name`]), in order of number (one, in a store's
    /// segment, whose names are its ids); `None` in a segment of a former
    /// format, which has no table of names. A name its filter rules out
    /// costs one read of the filter; one it holds, about two reads of the
    /// table and a name's.
    ///
    /// ```
    /// use neardup_core::Width;
    /// use neardup_index::{NameHash, Segment, TablePlan};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("prints.ndx");
    /// let plan = TablePlan::pigeonhole(Width::W64, 3)?;
    /// Segment::write(&path, plan, &[1u64, 2, 3], &["a", "b", "a"])?;
    /// let segment = Segment::<u64>::open(&path)?;
    /// assert_eq!(segment.entries_named("a", &NameHash::of("a")), Some(vec![0, 2]));
    /// assert_eq!(segment.entries_named("c", &NameHash::of("c")), Some(vec![]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn entries_named(&self, name: &str, hash: &NameHash) -> Option<Vec<u32>> {
        if self.tables_from <= NAME_TABLE {
            return None;
        }
        if !self.may_have_name(hash) {
            return Some(Vec::new());
        }
        // Checked at open: its length, and so an empty slot.
        let slots: &[u32] = bytemuck::try_cast_slice(self.section(NAME_TABLE)).unwrap_or(&[]);
        let mut found: Vec<u32> = candidates(slots, hash)
            .filter(|&entry| self.name(entry) == Some(name))
            .collect();
        found.sort_unstable();
        Some(found)
    }

    /// Every fingerprint within `k` bits of `query`, by distance, then
    /// number.
    pub fn query(&self, query: B) -> Vec<Neighbour> {
        self.tables().search(query, |_| true)
    }

    fn tables<'a>(&'a self) -> Tables<'a, B, impl Fn(usize) -> &'a [u32] + 'a> {
        Tables {
            plan: &self.plan,
            masks: &self.masks,
            slots: |t: usize| -> &[u32] {
                // Checked at open: aligned, and with an empty slot.
                bytemuck::try_cast_slice(self.section(self.tables_from + t)).unwrap_or(&NO_SLOTS)
            },
            id_bits: self.id_bits,
            fingerprints: self.fingerprints(),
        }
    }

    /// The number of fingerprints.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether the segment holds no fingerprint.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The plan of its tables.
    pub fn plan(&self) -> &TablePlan {
        &self.plan
    }

    /// The format version it was written in: [`SEGMENT_FORMAT`], or an
    /// earlier one still read.
    pub fn format(&self) -> u32 {
        self.format
    }

    /// The file it was opened from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The size of the file, in bytes.
    pub fn file_bytes(&self) -> usize {
        self.map.len()
    }
}

pub(crate) fn align(n: usize) -> usize {
    n.div_ceil(ALIGN) * ALIGN
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    let mut b = [0u8; 4];
    b.copy_from_slice(&bytes[at..at + 4]);
    u32::from_le_bytes(b)
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(b)
}
