//! The outputs of `neardup dedup`, each written to a temporary name and
//! renamed when whole.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::atomic::write_atomically_with;
use crate::error::{Error, Result};
use crate::faults::Faults;
use neardup_corpus::{CopyError, Format, ParquetRowWriter, copy_lines};
use neardup_dedup::{Fate, Fates, Outcome, Record, Why};

/// The files a run writes, `summary.json` (written last) last.
pub(crate) const OUTPUTS: [&str; 7] = [
    "unique.jsonl",
    "unique.txt",
    "unique.parquet",
    "duplicates.jsonl",
    "clusters.jsonl",
    "report.html",
    "summary.json",
];

/// A filter over record numbers (lines or rows) asked about in increasing
/// order: whether each is one of `kept`, given in increasing order.
fn kept_in_order(kept: impl Iterator<Item = u64>) -> impl FnMut(u64) -> bool {
    let mut kept = kept.peekable();
    move |number| {
        while kept.next_if(|&line| line < number).is_some() {}
        kept.peek() == Some(&number)
    }
}

/// `unique.jsonl`: the kept JSON lines, byte for byte; `unique.parquet`:
/// the kept Parquet rows, all columns as they were (the Parquet inputs must
/// have one schema); `unique.txt`: the kept lines of line-based text files,
/// and the paths of kept whole-file documents. Each written only if some
/// input is of its kind.
pub(crate) fn write_unique(
    out: &Path,
    format: Format,
    files: &[PathBuf],
    records: &[Record],
    fates: Fates,
    faults: &Faults,
) -> Result<()> {
    // Per file, the documents it holds (first and last; a file's documents
    // come one after another) and whether the whole file is kept; its kept
    // lines are read from the records as it is copied, not gathered.
    let mut spans: Vec<Option<(usize, usize)>> = vec![None; files.len()];
    let mut kept_whole: Vec<bool> = vec![false; files.len()];
    for (d, (r, fate)) in records.iter().zip(fates).enumerate() {
        let origin = r.origin();
        let file = origin.file as usize;
        let Some(span) = spans.get_mut(file) else {
            // Never so for documents of these files; said, not skipped.
            return Err(Error::NoSuchFile { file });
        };
        *span = Some(span.map_or((d, d), |(first, _)| (first, d)));
        if fate == Fate::Kept && origin.line.is_none() {
            kept_whole[file] = true;
        }
    }
    let kept_lines = |f: usize| {
        let (first, last) = spans[f].unwrap_or((1, 0));
        (first..=last).filter_map(move |d| {
            let origin = records[d].origin();
            let kept = origin.file as usize == f && fates.get(d) == Some(Fate::Kept);
            origin.line.filter(|_| kept)
        })
    };
    // Each file's kind of output: JSON lines, Parquet, or text.
    let kinds: Vec<Format> = files
        .iter()
        .map(|f| match format.of(f) {
            kind @ (Format::JsonLines | Format::Parquet) => kind,
            _ => Format::Text,
        })
        .collect();
    let of_kind =
        |kind: Format| -> Vec<usize> { (0..files.len()).filter(|&f| kinds[f] == kind).collect() };
    let (json, parquet, text) = (
        of_kind(Format::JsonLines),
        of_kind(Format::Parquet),
        of_kind(Format::Text),
    );
    let copy = |out: &mut BufWriter<File>, f: usize| -> Result<()> {
        // Lines come in order, and so do the kept ones.
        match copy_lines(&files[f], kept_in_order(kept_lines(f)), out) {
            Ok(_) => Ok(()),
            Err(CopyError::Read(path, e)) => Err(Error::at("reading again", &path, e)),
            Err(CopyError::Write(e)) => Err(e.into()),
        }
    };
    if !json.is_empty() {
        let path = out.join("unique.jsonl");
        write_atomically_with(&path, faults, |w| {
            for &f in &json {
                copy(w, f)?;
            }
            Ok(())
        })
        .map_err(|e| Error::at("cannot write", &path, e))?;
    }
    if !parquet.is_empty() {
        let path = out.join("unique.parquet");
        write_atomically_with(&path, faults, |w| {
            let mut rows = ParquetRowWriter::new(w);
            for &f in &parquet {
                rows.copy(&files[f], kept_in_order(kept_lines(f)))
                    .map_err(|e| Error::at("writing", &path, e))?;
            }
            rows.finish().map_err(|e| Error::at("writing", &path, e))?;
            Ok(())
        })?;
    }
    if !text.is_empty() {
        let path = out.join("unique.txt");
        write_atomically_with(&path, faults, |w| {
            for &f in &text {
                if kept_whole[f] {
                    w.write_all(&path_bytes(&files[f]))?;
                    w.write_all(b"\n")?;
                } else if kept_lines(f).next().is_some() {
                    copy(w, f)?;
                }
            }
            Ok(())
        })
        .map_err(|e| Error::at("cannot write", &path, e))?;
    }
    Ok(())
}

/// The bytes of `path` as the system has them (a name that is not UTF-8
/// stays the file's name); on systems whose paths are not bytes, as UTF-8.
fn path_bytes(path: &Path) -> std::borrow::Cow<'_, [u8]> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        std::borrow::Cow::Borrowed(path.as_os_str().as_bytes())
    }
    #[cfg(not(unix))]
    {
        std::borrow::Cow::Owned(path.to_string_lossy().into_owned().into_bytes())
    }
}

/// `duplicates.jsonl`: each dropped document, the kept one it duplicates,
/// their distance, and why ([`neardup_dedup::Why`]: the similarity that
/// decided it, and how the pair was found: `exact`, `fingerprint`,
/// `short`), in input order.
pub(crate) fn write_duplicates<'a>(
    out: &Path,
    id: &dyn Fn(u32) -> &'a str,
    outcome: &'a Outcome,
    faults: &Faults,
) -> Result<()> {
    write_atomically_with(&out.join("duplicates.jsonl"), faults, |w| {
        for (d, fate) in outcome.fates().iter().enumerate() {
            let (of, distance, against) = match fate {
                Fate::DuplicateOfIndexed { entry, distance } => {
                    (outcome.indexed_name(entry).unwrap_or(""), distance, true)
                }
                Fate::Duplicate { of, distance } => (id(of), distance, false),
                Fate::Kept => continue,
            };
            w.write_all(b"{\"id\":")?;
            serde_json::to_writer(&mut *w, id(d as u32))?;
            w.write_all(b",\"duplicate_of\":")?;
            serde_json::to_writer(&mut *w, of)?;
            write!(w, ",\"distance\":{distance}")?;
            write_why(w, outcome.why(d as u32))?;
            if against {
                w.write_all(b",\"in_index\":true")?;
            }
            w.write_all(b"}\n")?;
        }
        Ok(())
    })
}

/// `,"similarity":…,"found_by":"…"` of a drop, as far as known.
fn write_why(w: &mut dyn Write, why: Option<Why>) -> std::io::Result<()> {
    let Some(why) = why else { return Ok(()) };
    if let Some(similarity) = why.similarity {
        write!(w, ",\"similarity\":{:.4}", similarity)?;
    }
    write!(w, ",\"found_by\":\"{}\"", why.found_by.name())
}

/// `annotated.jsonl` (`--annotate`): every document's fate, in input
/// order, as a column beside the records: kept or not, its cluster (the
/// id of the kept document of its group, its own when kept), and for a
/// dropped one what it duplicates, their distance, the similarity and how
/// the pair was found.
pub(crate) fn write_annotated<'a>(
    out: &Path,
    id: &dyn Fn(u32) -> &'a str,
    outcome: &'a Outcome,
    faults: &Faults,
) -> Result<()> {
    write_atomically_with(&out.join("annotated.jsonl"), faults, |w| {
        for (d, fate) in outcome.fates().iter().enumerate() {
            let own = id(d as u32);
            let (cluster, distance, against) = match fate {
                Fate::Kept => (own, None, false),
                Fate::Duplicate { of, distance } => (id(of), Some(distance), false),
                Fate::DuplicateOfIndexed { entry, distance } => (
                    outcome.indexed_name(entry).unwrap_or(""),
                    Some(distance),
                    true,
                ),
            };
            w.write_all(b"{\"id\":")?;
            serde_json::to_writer(&mut *w, own)?;
            write!(w, ",\"kept\":{}", fate == Fate::Kept)?;
            w.write_all(b",\"cluster\":")?;
            serde_json::to_writer(&mut *w, cluster)?;
            if let Some(distance) = distance {
                w.write_all(b",\"duplicate_of\":")?;
                serde_json::to_writer(&mut *w, cluster)?;
                write!(w, ",\"distance\":{distance}")?;
                write_why(w, outcome.why(d as u32))?;
            }
            if against {
                w.write_all(b",\"in_index\":true")?;
            }
            w.write_all(b"}\n")?;
        }
        Ok(())
    })
}

/// `clusters.jsonl`: each kept document with duplicates, and its members
/// (itself first); returns how many groups there are.
pub(crate) fn write_clusters<'a>(
    out: &Path,
    id: &dyn Fn(u32) -> &'a str,
    members: &[(u32, u32)],
    faults: &Faults,
) -> Result<usize> {
    let mut groups = 0;
    write_atomically_with(&out.join("clusters.jsonl"), faults, |w| {
        for group in members.chunk_by(|x, y| x.0 == y.0) {
            groups += 1;
            let keep = group[0].0;
            let ids: Vec<&str> = std::iter::once(keep)
                .chain(group.iter().map(|&(_, d)| d))
                .map(id)
                .collect();
            w.write_all(b"{\"representative\":")?;
            serde_json::to_writer(&mut *w, id(keep))?;
            w.write_all(b",\"members\":")?;
            serde_json::to_writer(&mut *w, &ids)?;
            w.write_all(b"}\n")?;
        }
        Ok(())
    })?;
    Ok(groups)
}
