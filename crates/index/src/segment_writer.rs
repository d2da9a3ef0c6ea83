//! Writing a segment file (its layout is in [`crate::Segment`]'s module)
//! section by section, as the bytes are made: a store's merge writes
//! segments of 10⁸ entries, whose names and tables together are many times
//! the fingerprints' size, so none of them is held whole.
//!
//! Every section's offset is known before its bytes: fingerprints, name
//! offsets and sequence numbers have fixed sizes, and the names section
//! starts where the sequence numbers end. So the names are read once,
//! their offsets written through one handle of the file, their bytes
//! through another, and their filter and table built as they pass (2.5
//! and 6 bytes a name), written after them and dropped; each table of
//! fingerprints is then built, written and dropped in turn. The directory, whose checksums
//! are known only at the end, is written last, over the zeros left for it.

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use xxhash_rust::xxh3::{Xxh3Default, xxh3_64};

use crate::bits::Bits;
use crate::error::{Error, Result};
use crate::key_table::KeyTable;
use crate::name_filter::{NameFilterBuilder, NameHash};
use crate::name_table::NameTableBuilder;
use crate::online::id_bits_for;
use crate::plan::TablePlan;
use crate::query::key_hash;
use crate::segment::{
    ALIGN, FILTER, FIXED_SECTIONS, HEADER_LEN, MAGIC, NAME_TABLE, SEGMENT_FORMAT, SEQS, align,
};

/// Writes the segment of `fingerprints`, named `names` and numbered `seqs`
/// (one each), with `plan`'s tables to `path`, whole or not at all:
/// through a temporary file in its directory, synced and renamed over
/// `path` once complete.
pub(crate) fn write<B: Bits>(
    path: &Path,
    plan: &TablePlan,
    fingerprints: &[B],
    names: impl IntoIterator<Item = impl AsRef<str>>,
    seqs: impl IntoIterator<Item = u64>,
) -> Result<()> {
    if plan.width() != B::WIDTH {
        return Err(Error::WidthMismatch {
            plan_bits: plan.width().bits(),
            bits: B::WIDTH.bits(),
        });
    }
    let count = u32::try_from(fingerprints.len())
        .ok()
        .filter(|&n| n < u32::MAX)
        .ok_or(Error::TooManyFingerprints {
            count: fingerprints.len(),
        })?;
    let temp = temporary(path);
    let io = |e| Error::Io(path.to_path_buf(), e);
    let result = (|| {
        let file = File::create(&temp).map_err(io)?;
        let given =
            write_sections(&file, &temp, plan, fingerprints, count, names, seqs).map_err(io)?;
        if given.names != fingerprints.len() {
            return Err(Error::NamesMismatch {
                names: given.names,
                fingerprints: fingerprints.len(),
            });
        }
        if given.seqs != fingerprints.len() {
            return Err(Error::SeqsMismatch {
                seqs: given.seqs,
                fingerprints: fingerprints.len(),
            });
        }
        file.sync_all().map_err(io)?;
        std::fs::rename(&temp, path).map_err(io)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result
}

/// The temporary name `path` is written under: hidden, and ending in
/// `.tmp`, which a store removes on open when a crash left it.
fn temporary(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(".{name}.{}.tmp", std::process::id()))
}

/// How many names and sequence numbers a writer was given: past the
/// fingerprints' count, the rest are counted, not written.
struct Given {
    names: usize,
    seqs: usize,
}

/// Writes the whole segment to `file` (at `temp`); returns what it was
/// given, which the caller checks.
///
/// In the file, the sequence numbers lie between the name offsets and the
/// names (all three have sizes known at the start), though their section
/// is numbered after the filter's: sections are found by the directory,
/// and the formats before kept their numbers.
fn write_sections<B: Bits>(
    file: &File,
    temp: &Path,
    plan: &TablePlan,
    fingerprints: &[B],
    count: u32,
    names: impl IntoIterator<Item = impl AsRef<str>>,
    seqs: impl IntoIterator<Item = u64>,
) -> std::io::Result<Given> {
    let id_bits = id_bits_for(count);
    let n = fingerprints.len();
    let sections = FIXED_SECTIONS + plan.tables();
    let directory_len = sections * 24 + 8;
    let mut entries = vec![(0, 0, 0); sections];

    let mut head = Sections::at(file.try_clone()?, 0);
    head.put(&header(plan, id_bits, n, sections))?;
    head.put(&vec![0u8; directory_len])?;
    head.begin()?;
    head.put(bytemuck::cast_slice(fingerprints))?;
    entries[0] = head.end();

    // Offsets through `head`, the sequence numbers through `middle`, from
    // where the offsets will end, and the names' bytes through `tail`,
    // from where the sequence numbers will.
    head.begin()?;
    let seqs_at = align(head.at + (n + 1) * 8);
    let names_at = align(seqs_at + n * 8);
    let at = |place: usize| -> std::io::Result<Sections> {
        let mut other = OpenOptions::new().write(true).open(temp)?;
        other.seek(SeekFrom::Start(place as u64))?;
        let mut sections = Sections::at(other, place);
        sections.begin()?;
        Ok(sections)
    };
    let mut middle = at(seqs_at)?;
    let mut tail = at(names_at)?;
    let mut given = Given { names: 0, seqs: 0 };
    for seq in seqs {
        given.seqs += 1;
        if given.seqs <= n {
            middle.put(&seq.to_le_bytes())?;
        }
    }
    let mut end = 0u64;
    let mut filter = NameFilterBuilder::new(n);
    let mut table = NameTableBuilder::new(n);
    head.put(&end.to_le_bytes())?;
    for name in names {
        given.names += 1;
        if given.names <= n {
            let name = name.as_ref();
            let hash = NameHash::of(name);
            filter.insert(&hash);
            table.insert(&hash, (given.names - 1) as u32);
            tail.put(name.as_bytes())?;
            end += name.len() as u64;
            head.put(&end.to_le_bytes())?;
        }
    }
    if given.names != n || given.seqs != n {
        return Ok(given);
    }
    entries[1] = head.end();
    entries[SEQS] = middle.end();
    middle.out.flush()?;
    drop(middle);
    entries[2] = tail.end();
    tail.begin()?;
    tail.put(filter.bytes())?;
    entries[FILTER] = tail.end();
    drop(filter);
    tail.begin()?;
    tail.put(table.bytes())?;
    entries[NAME_TABLE] = tail.end();
    drop(table);

    // One table at a time: a merge's peak memory is the fingerprints and
    // one table, whatever the plan.
    for t in 0..plan.tables() {
        let mut table = KeyTable::new(n, id_bits);
        table.fill(0..count, |i| {
            key_hash(plan.key(t, fingerprints[i as usize]))
        });
        tail.begin()?;
        tail.put(bytemuck::cast_slice(table.slots()))?;
        entries[FIXED_SECTIONS + t] = tail.end();
    }
    tail.out.flush()?;

    let mut directory = Vec::with_capacity(directory_len);
    for (offset, len, sum) in entries {
        for v in [offset as u64, len as u64, sum] {
            directory.extend_from_slice(&v.to_le_bytes());
        }
    }
    directory.extend_from_slice(&xxh3_64(&directory).to_le_bytes());
    head.out.seek(SeekFrom::Start(HEADER_LEN as u64))?;
    head.out.write_all(&directory)?;
    head.out.flush()?;
    Ok(given)
}

/// The 64-byte header of a segment of `n` fingerprints in `sections`
/// sections.
fn header(plan: &TablePlan, id_bits: u32, n: usize, sections: usize) -> Vec<u8> {
    let mut header = Vec::with_capacity(HEADER_LEN);
    header.extend_from_slice(&MAGIC);
    for v in [
        SEGMENT_FORMAT,
        plan.width().bits(),
        plan.k(),
        plan.blocks().len() as u32,
        plan.tables() as u32,
        id_bits,
    ] {
        header.extend_from_slice(&v.to_le_bytes());
    }
    for v in [n as u64, sections as u64, 0] {
        header.extend_from_slice(&v.to_le_bytes());
    }
    header.extend_from_slice(&xxh3_64(&header).to_le_bytes());
    header
}

/// How many bytes a segment's writer lets pile up unwritten to disk: past
/// it, the kernel is told to write them now, and the writer waits for the
/// bytes before them. A merge writes gigabytes; synced only at the end,
/// they would fill the disk's queue for seconds, and every group commit's
/// sync would wait behind them (a 400 MB file synced beside the service
/// stopped its commits for 0.8 s). So at most two of these are in flight
/// for each of the writers of a segment's sections (the names' head and
/// tail are written side by side): a commit's sync waits behind about a
/// megabyte at most, four at 1 MiB chunks.
const WRITE_BEHIND: usize = 1 << 18;

/// Sections written one after another from a place in the file, each
/// checksummed as it is written.
struct Sections {
    out: BufWriter<File>,
    /// The place in the file of the next byte.
    at: usize,
    /// Where the open section starts, and the checksum of its bytes so far.
    start: usize,
    sum: Xxh3Default,
    /// The bytes whose writing to disk was started last: from `behind.0`
    /// to `behind.1`, after which no writing was started yet.
    behind: (usize, usize),
}

impl Sections {
    /// Sections written from `at` (where `file`'s cursor must be).
    fn at(file: File, at: usize) -> Sections {
        Sections {
            out: BufWriter::with_capacity(1 << 16, file),
            at,
            start: at,
            sum: Xxh3Default::new(),
            behind: (at, at),
        }
    }

    /// Starts writing the bytes since the last call to disk once there
    /// are [`WRITE_BEHIND`] of them, after waiting for those of the last
    /// call (see [`WRITE_BEHIND`]).
    fn write_behind(&mut self) -> std::io::Result<()> {
        let (last, from) = self.behind;
        if self.at - from < WRITE_BEHIND {
            return Ok(());
        }
        self.out.flush()?;
        start_writing(self.out.get_ref(), from, self.at - from, last);
        self.behind = (from, self.at);
        Ok(())
    }

    /// Starts a section: zeros up to the next multiple of [`ALIGN`].
    fn begin(&mut self) -> std::io::Result<()> {
        let zeros = align(self.at) - self.at;
        self.out.write_all(&[0u8; ALIGN][..zeros])?;
        self.at += zeros;
        self.start = self.at;
        self.sum.reset();
        Ok(())
    }

    fn put(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        for chunk in bytes.chunks(WRITE_BEHIND) {
            self.out.write_all(chunk)?;
            self.sum.update(chunk);
            self.at += chunk.len();
            self.write_behind()?;
        }
        Ok(())
    }

    /// The open section's directory entry: offset, length and checksum.
    fn end(&self) -> (usize, usize, u64) {
        (self.start, self.at - self.start, self.sum.digest())
    }
}

/// Waits until the file's bytes from `last` to `from` are on disk, then
/// starts writing the `len` bytes at `from`, without waiting for them
/// (Linux's `sync_file_range`). Advice only: the file is synced whole
/// before it is renamed, so a failure here (a file system without it,
/// say) changes nothing but the pacing.
#[cfg(target_os = "linux")]
fn start_writing(file: &File, from: usize, len: usize, last: usize) {
    use std::os::fd::AsRawFd;
    let fd = file.as_raw_fd();
    let wait = libc::SYNC_FILE_RANGE_WAIT_BEFORE
        | libc::SYNC_FILE_RANGE_WRITE
        | libc::SYNC_FILE_RANGE_WAIT_AFTER;
    for (offset, bytes, flags) in [
        (last, from - last, wait),
        (from, len, libc::SYNC_FILE_RANGE_WRITE),
    ] {
        if bytes == 0 {
            continue;
        }
        // SAFETY: `fd` is the open file `file` borrows for the length of
        // the call, and the call reads and writes no memory of ours.
        let _ = unsafe { libc::sync_file_range(fd, offset as i64, bytes as i64, flags) };
    }
}

#[cfg(not(target_os = "linux"))]
fn start_writing(_file: &File, _from: usize, _len: usize, _last: usize) {}
