//! An index directory: a manifest naming the current segment file.
//!
//! ```text
//! DIR/MANIFEST         neardup-index 1
//!                      width 64
//!                      segment seg-000002.ndx
//! DIR/seg-000002.ndx   the segment (see crate::Segment)
//! ```
//!
//! New fingerprints go first to a mutable part in memory (an
//! [`OnlineIndex`]), which queries see at once. Committing merges them into
//! a new segment with the old ones, then swaps the manifest to it (a rename)
//! and removes the old file: a reader sees the old index or the new one,
//! never a mix, and a crash leaves at most an unused file behind, which the
//! next writer removes.
//!
//! One writer at a time ([`WriterLock`] on `DIR/LOCK`, taken at the first
//! write and held while the index is open): a second is refused with an
//! error, never left to replace the first one's segment with its own.
//! Readers take no lock.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use neardup_core::Width;

use crate::bits::Bits;
use crate::error::{Error, Result};
use crate::lock::{LOCK_FILE, WriterLock};
use crate::online::OnlineIndex;
use crate::plan::TablePlan;
use crate::query::Match;
use crate::segment::Segment;

/// The version of the directory layout.
const LAYOUT_VERSION: u32 = 1;
const MANIFEST: &str = "MANIFEST";

/// An index directory, opened.
///
/// ```
/// use neardup_core::Width;
/// use neardup_index::{IndexDir, TablePlan};
///
/// let dir = tempfile::tempdir()?;
/// let plan = TablePlan::pigeonhole(Width::W64, 3)?;
/// IndexDir::create(dir.path(), plan, &[1u64, 2], &["a", "b"])?;
/// let mut index = IndexDir::<u64>::open(dir.path())?;
/// index.add(&[3u64], &["c"])?;
/// assert_eq!(index.segment().len(), 3);
/// assert!(index.add(&[4u64], &["a"]).is_err(), "names are unique");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct IndexDir<B> {
    path: PathBuf,
    generation: u64,
    segment: Segment<B>,
    /// Fingerprints inserted since the segment was written.
    pending: OnlineIndex<B>,
    pending_names: Vec<String>,
    /// Every name in the index, gathered on the first insert.
    names: Option<HashSet<String>>,
    /// The writer lock, from the first write on.
    lock: Option<WriterLock>,
}

/// What a manifest says.
struct Manifest {
    width: Width,
    segment: String,
}

impl<B: Bits> IndexDir<B> {
    /// Creates an index of `fingerprints`, named `names`, in directory
    /// `path` (made if missing), which must not hold an index yet.
    ///
    /// # Errors
    ///
    /// [`Error::Input`] when `path` holds an index or the names repeat,
    /// and as [`Segment::write`].
    pub fn create(
        path: &Path,
        plan: TablePlan,
        fingerprints: &[B],
        names: &[impl AsRef<str>],
    ) -> Result<()> {
        if path.join(MANIFEST).exists() {
            return Err(Error::Input(format!(
                "{} already holds an index; add to it, or remove it first",
                path.display()
            )));
        }
        unique(names.iter().map(AsRef::as_ref), &HashSet::new())?;
        std::fs::create_dir_all(path).map_err(|e| Error::Io(path.to_path_buf(), e))?;
        let _lock = WriterLock::acquire(path, LOCK_FILE, "an index")?;
        // Another writer may have made it while this one waited to start.
        if path.join(MANIFEST).exists() {
            return Err(Error::Input(format!(
                "{} already holds an index; add to it, or remove it first",
                path.display()
            )));
        }
        remove_leftovers(path, None);
        write_generation(path, 1, plan, fingerprints, names)
    }

    /// Opens the index in directory `path`.
    ///
    /// # Errors
    ///
    /// [`Error::Format`] when the manifest is missing, of another layout
    /// version or of another width, and as [`Segment::open`].
    pub fn open(path: &Path) -> Result<IndexDir<B>> {
        let manifest = read_manifest(path)?;
        if manifest.width != B::WIDTH {
            return Err(Error::Format(
                path.join(MANIFEST),
                format!("the index holds {}-bit fingerprints", manifest.width.bits()),
            ));
        }
        let generation = generation_of(&manifest.segment).ok_or_else(|| {
            Error::Format(
                path.join(MANIFEST),
                format!("bad segment name {:?}", manifest.segment),
            )
        })?;
        let segment = Segment::open(&path.join(&manifest.segment))?;
        let pending = OnlineIndex::new(segment.plan().clone())?;
        Ok(IndexDir {
            path: path.to_path_buf(),
            generation,
            segment,
            pending,
            pending_names: Vec::new(),
            names: None,
            lock: None,
        })
    }

    /// Takes the writer lock, once: refused while another process writes
    /// the index, and when one wrote it since this one opened it (its
    /// fingerprints would be lost under this one's segment). The files an
    /// interrupted writer left go.
    fn lock(&mut self) -> Result<()> {
        if self.lock.is_some() {
            return Ok(());
        }
        let lock = WriterLock::acquire(&self.path, LOCK_FILE, "an index")?;
        let now = read_manifest(&self.path)?;
        if generation_of(&now.segment) != Some(self.generation) {
            return Err(Error::Input(format!(
                "{} was written by another neardup since this one opened it; open it again",
                self.path.display()
            )));
        }
        remove_leftovers(&self.path, Some(&now.segment));
        self.lock = Some(lock);
        Ok(())
    }

    /// The width of the index in directory `path`, to open it with.
    ///
    /// # Errors
    ///
    /// As [`IndexDir::open`].
    pub fn width(path: &Path) -> Result<Width> {
        Ok(read_manifest(path)?.width)
    }

    /// Inserts `fingerprint` named `name` into the mutable part: queries
    /// find it at once; [`IndexDir::commit`] writes it to the directory.
    ///
    /// # Errors
    ///
    /// [`Error::Input`] when the name is already in the index.
    pub fn insert(&mut self, fingerprint: B, name: &str) -> Result<()> {
        self.lock()?;
        let segment = &self.segment;
        let names = self.names.get_or_insert_with(|| {
            (0..segment.len() as u32)
                .filter_map(|i| segment.name(i))
                .map(str::to_string)
                .collect()
        });
        if !names.insert(name.to_string()) {
            return Err(Error::Input(format!(
                "the name {name:?} is already in the index; names are unique"
            )));
        }
        self.pending.insert(fingerprint)?;
        self.pending_names.push(name.to_string());
        Ok(())
    }

    /// Every fingerprint within `k` bits of `query`, in the segment and the
    /// mutable part, by distance, then number: numbers from the segment's
    /// length on are the mutable part's, in order of insertion.
    pub fn query(&self, query: B) -> Vec<Match> {
        let offset = self.segment.len() as u32;
        let mut found = self.segment.query(query);
        found.extend(self.pending.query(query).into_iter().map(|m| Match {
            id: m.id + offset,
            ..m
        }));
        found.sort_unstable();
        found
    }

    /// The name of fingerprint `id`, as [`IndexDir::query`] numbers them.
    pub fn name(&self, id: u32) -> Option<&str> {
        match id.checked_sub(self.segment.len() as u32) {
            None => self.segment.name(id),
            Some(i) => self.pending_names.get(i as usize).map(String::as_str),
        }
    }

    /// Fingerprints inserted and not committed yet.
    pub fn pending(&self) -> usize {
        self.pending.len()
    }

    /// Merges the mutable part into a new segment, swapped in whole.
    ///
    /// # Errors
    ///
    /// As [`Segment::write`].
    pub fn commit(&mut self) -> Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let fps: Vec<B> = (0..self.pending_names.len() as u32)
            .filter_map(|i| self.pending.get(i))
            .collect();
        // The names stay until the new segment is in place: a failed write
        // leaves the mutable part as it was.
        let names = self.pending_names.clone();
        self.write_with(&fps, &names)?;
        self.pending_names.clear();
        self.pending = OnlineIndex::new(self.segment.plan().clone())?;
        Ok(())
    }

    /// Adds `fingerprints`, named `names`, to the index: a new segment with
    /// every fingerprint, swapped in whole.
    ///
    /// # Errors
    ///
    /// [`Error::Input`] when a name is already in the index or repeats, and
    /// as [`Segment::write`].
    pub fn add(&mut self, fingerprints: &[B], names: &[impl AsRef<str>]) -> Result<()> {
        self.lock()?;
        self.commit()?;
        let existing: HashSet<&str> = (0..self.segment.len() as u32)
            .filter_map(|i| self.segment.name(i))
            .collect();
        unique(names.iter().map(AsRef::as_ref), &existing)?;
        self.write_with(fingerprints, names)?;
        self.names = None;
        Ok(())
    }

    /// Writes a new segment of the current one's fingerprints and
    /// `fingerprints`, and swaps it in.
    fn write_with(&mut self, fingerprints: &[B], names: &[impl AsRef<str>]) -> Result<()> {
        let old: Vec<&str> = (0..self.segment.len() as u32)
            .filter_map(|i| self.segment.name(i))
            .collect();
        let mut all_fps = self.segment.fingerprints().to_vec();
        all_fps.extend_from_slice(fingerprints);
        let mut all_names: Vec<&str> = old;
        all_names.extend(names.iter().map(AsRef::as_ref));
        let generation = self.generation.checked_add(1).ok_or_else(|| {
            Error::Format(
                self.path.join(MANIFEST),
                "segment numbers are used up".into(),
            )
        })?;
        let plan = self.segment.plan().clone();
        write_generation(&self.path, generation, plan, &all_fps, &all_names)?;
        let old_file = self.segment.path().to_path_buf();
        self.segment = Segment::open(&self.path.join(segment_name(generation)))?;
        self.generation = generation;
        // Readers that opened the old file keep their mapping.
        let _ = std::fs::remove_file(old_file);
        Ok(())
    }

    /// The current segment.
    pub fn segment(&self) -> &Segment<B> {
        &self.segment
    }
}

/// Removes what an interrupted writer may have left in `dir`: temporary
/// files of ours, and segments other than `current` (none when the index
/// is new). Only under the writer lock; a reader that mapped a removed
/// segment keeps its mapping.
fn remove_leftovers(dir: &Path, current: Option<&str>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else {
            continue;
        };
        let temporary = name.starts_with('.') && name.ends_with(".tmp");
        let old_segment = generation_of(name).is_some() && Some(name) != current;
        if temporary || old_segment {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

fn segment_name(generation: u64) -> String {
    format!("seg-{generation:06}.ndx")
}

fn generation_of(name: &str) -> Option<u64> {
    name.strip_prefix("seg-")?
        .strip_suffix(".ndx")?
        .parse()
        .ok()
}

/// Writes segment `generation` and points the manifest at it.
fn write_generation<B: Bits>(
    dir: &Path,
    generation: u64,
    plan: TablePlan,
    fingerprints: &[B],
    names: &[impl AsRef<str>],
) -> Result<()> {
    let name = segment_name(generation);
    Segment::write(&dir.join(&name), plan, fingerprints, names)?;
    let manifest = format!(
        "neardup-index {LAYOUT_VERSION}\nwidth {}\nsegment {name}\n",
        B::WIDTH.bits()
    );
    let path = dir.join(MANIFEST);
    let temp = dir.join(format!(".{MANIFEST}.{}.tmp", std::process::id()));
    let io = |e| Error::Io(path.clone(), e);
    std::fs::write(&temp, manifest).map_err(io)?;
    std::fs::File::open(&temp)
        .and_then(|f| f.sync_all())
        .map_err(io)?;
    std::fs::rename(&temp, &path).map_err(io)
}

fn read_manifest(dir: &Path) -> Result<Manifest> {
    let path = dir.join(MANIFEST);
    let text = std::fs::read_to_string(&path).map_err(|e| Error::Io(path.clone(), e))?;
    let bad = |what: String| Error::Format(path.clone(), what);
    let mut lines = text.lines();
    let version = lines
        .next()
        .and_then(|l| l.strip_prefix("neardup-index "))
        .ok_or_else(|| bad("not a neardup index manifest".into()))?;
    if version != LAYOUT_VERSION.to_string() {
        return Err(bad(format!(
            "an index of layout version {version}; this neardup reads version \
             {LAYOUT_VERSION}: rebuild the index with it"
        )));
    }
    let mut width = None;
    let mut segment = None;
    for line in lines {
        match line.split_once(' ') {
            Some(("width", w)) => {
                width = w.parse().ok().and_then(|w| Width::from_bits(w).ok());
            }
            Some(("segment", s)) => segment = Some(s.to_string()),
            _ => return Err(bad(format!("unknown line {line:?}"))),
        }
    }
    match (width, segment) {
        (Some(width), Some(segment)) => Ok(Manifest { width, segment }),
        _ => Err(bad("it names no width or no segment".into())),
    }
}

/// Checks that `names` repeat neither each other nor `existing`.
fn unique<'a>(names: impl Iterator<Item = &'a str>, existing: &HashSet<&str>) -> Result<()> {
    let mut seen = HashSet::new();
    for name in names {
        if existing.contains(name) || !seen.insert(name) {
            return Err(Error::Input(format!(
                "the name {name:?} is already in the index; names are unique"
            )));
        }
    }
    Ok(())
}
