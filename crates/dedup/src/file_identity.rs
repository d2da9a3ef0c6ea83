//! What an input file was when a run first looked at it: its size, its
//! modification time and a hash of its first and last 64 KiB. A run reads
//! its inputs more than once; a file rewritten in between (even to the
//! same size and line count) would mix two versions in one result, so
//! each later read checks it first.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;
use std::time::SystemTime;

use xxhash_rust::xxh3::Xxh3;

/// Bytes hashed at each end of a file.
const SAMPLE: u64 = 64 << 10;

/// A file's identity, as [`FileIdentity::of`] takes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct FileIdentity {
    len: u64,
    modified: Option<SystemTime>,
    sample: u128,
}

impl FileIdentity {
    /// The identity of the file at `path` now; an error for what is not a
    /// regular file (opening a pipe would wait for a writer).
    pub(crate) fn of(path: &Path) -> io::Result<FileIdentity> {
        if !std::fs::metadata(path)?.is_file() {
            return Err(io::Error::other("not a regular file"));
        }
        let mut file = File::open(path)?;
        let meta = file.metadata()?;
        let len = meta.len();
        let mut hash = Xxh3::new();
        let mut buf = vec![0u8; SAMPLE.min(len) as usize];
        file.read_exact(&mut buf)?;
        hash.update(&buf);
        if len > SAMPLE {
            file.seek(SeekFrom::Start(len - SAMPLE.min(len - SAMPLE)))?;
            buf.resize(SAMPLE.min(len - SAMPLE) as usize, 0);
            file.read_exact(&mut buf)?;
            hash.update(&buf);
        }
        Ok(FileIdentity {
            len,
            modified: meta.modified().ok(),
            sample: hash.digest128(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rewrite_of_the_same_size_is_seen() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.jsonl");
        // A small file, and a large one changed in its last byte only.
        let long = "x".repeat(200_000);
        let long_changed = format!("{}y", &long[1..]);
        let cases = [
            (
                "{\"text\":\"one\"}\n".to_string(),
                "{\"text\":\"two\"}\n".to_string(),
            ),
            (long.clone(), long_changed),
        ];
        for (before, after) in cases {
            std::fs::write(&path, &before).unwrap();
            let first = FileIdentity::of(&path).unwrap();
            assert_eq!(FileIdentity::of(&path).unwrap(), first);
            std::fs::write(&path, &after).unwrap();
            assert_eq!(before.len(), after.len());
            assert_ne!(FileIdentity::of(&path).unwrap(), first, "{}", after.len());
        }
    }
}
