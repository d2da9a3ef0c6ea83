//! Walking an input directory: the files to read, in name order, and the
//! entries that are not read, each with its reason, so that every entry
//! is either read or counted.
//!
//! Hidden entries (a name starting with `.`) are left out. Symbolic links
//! are followed, except a link back to a directory above it (a loop) and
//! a link to a file or directory of the same input, which is read at its
//! own path rather than twice; a link to nothing is counted. FIFOs,
//! sockets and devices are counted, never opened (opening a FIFO waits for
//! a writer). A directory holding a dedup's outputs is counted and not
//! walked, so that a run with `--out` inside its input does not read its
//! own outputs the next time.

use std::ffi::OsStr;
use std::fs::FileType;
use std::path::{Component, Path};

use crate::corpus::InputFile;
use crate::error::{Error, NotRead, Place, Result};

/// Files whose presence together marks the output directory of a dedup:
/// a finished run's summary and report, an unfinished run's lists, or a
/// run's lock.
const DEDUP_OUTPUT_MARKS: &[&[&str]] = &[
    &["summary.json", "report.html"],
    &["duplicates.jsonl", "clusters.jsonl"],
    &[".neardup.lock"],
];

/// Appends the entries of directory `dir` (the input numbered `root`) to
/// `files`.
pub(crate) fn walk(dir: &Path, root: usize, files: &mut Vec<InputFile>) -> Result<()> {
    let place = |path: &Path| Place {
        path: path.to_path_buf(),
        line: None,
    };
    let inside = dir.canonicalize().map_err(|e| Error::io(place(dir), e))?;
    let not_read = |path: &Path, reason: NotRead| InputFile {
        path: path.to_path_buf(),
        root,
        walked: true,
        not_read: Some(reason),
    };
    let mut entries = walkdir::WalkDir::new(dir)
        .follow_links(true)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !is_hidden(e.file_name()));
    while let Some(entry) = entries.next() {
        let entry = match entry {
            Ok(entry) => entry,
            Err(e) => {
                let path = e.path().unwrap_or(dir).to_path_buf();
                if e.loop_ancestor().is_some() {
                    files.push(not_read(&path, NotRead::LinkLoop));
                    continue;
                }
                if path.file_name().is_some_and(is_hidden) {
                    continue;
                }
                if is_link(&path) && !path.exists() {
                    files.push(not_read(&path, NotRead::DanglingLink));
                    continue;
                }
                let io = e
                    .into_io_error()
                    .unwrap_or_else(|| std::io::Error::other("walk failed"));
                return Err(Error::io(place(&path), io));
            }
        };
        let path = entry.path();
        let kind = entry.file_type();
        let reason = if entry.depth() > 0 && entry.path_is_symlink() && links_inside(path, &inside)
        {
            Some(NotRead::LinkInside)
        } else if kind.is_dir() {
            (entry.depth() > 0 && is_dedup_output(path)).then_some(NotRead::DedupOutput)
        } else if kind.is_file() {
            None
        } else {
            Some(NotRead::Special(special_name(kind)))
        };
        match reason {
            Some(reason) => {
                if kind.is_dir() {
                    entries.skip_current_dir();
                }
                files.push(not_read(path, reason));
            }
            None if kind.is_file() => files.push(InputFile {
                path: entry.into_path(),
                root,
                walked: true,
                not_read: None,
            }),
            None => {}
        }
    }
    Ok(())
}

fn is_hidden(name: &OsStr) -> bool {
    name.as_encoded_bytes().starts_with(b".")
}

fn is_link(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

/// Whether the link at `path` leads to an entry walked at its own path in
/// the input directory `inside` (canonical): inside it, and not hidden.
fn links_inside(path: &Path, inside: &Path) -> bool {
    let Ok(target) = path.canonicalize() else {
        return false;
    };
    target.strip_prefix(inside).is_ok_and(|rest| {
        !rest
            .components()
            .any(|c| matches!(c, Component::Normal(name) if is_hidden(name)))
    })
}

fn is_dedup_output(dir: &Path) -> bool {
    DEDUP_OUTPUT_MARKS
        .iter()
        .any(|names| names.iter().all(|name| dir.join(name).exists()))
}

/// What a file that is neither a regular file nor a directory is.
#[cfg(unix)]
fn special_name(kind: FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if kind.is_fifo() {
        "FIFO"
    } else if kind.is_socket() {
        "socket"
    } else if kind.is_block_device() {
        "block device"
    } else if kind.is_char_device() {
        "character device"
    } else {
        "special file"
    }
}

/// What a file that is neither a regular file nor a directory is.
#[cfg(not(unix))]
fn special_name(_: FileType) -> &'static str {
    "special file"
}
