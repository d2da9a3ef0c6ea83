//! The write-ahead log (`store.wal`): every group commit's changes
//! appended to one file and synced, so that a write is acknowledged after
//! one small sync rather than a transaction of the log (`log.rs`), whose
//! commit writes and syncs pages across its file twice.
//!
//! ```text
//! header:  magic "NDWAL\0\0\x02" (8 bytes) | salt u64
//! record:  payload length u32 | crc32 u32 (of salt, epoch and payload) | epoch u64 | payload
//! ```
//! All numbers little-endian. The payload is a group commit's changes
//! (`change.rs`). The epoch is the checkpoint the records follow: the
//! log's manifest names the last checkpoint's (`wal_epoch`), and only
//! records of that epoch are read back; the others are what a checkpoint
//! already holds (a crash between its commit and the log's emptying).
//! Reading stops at the first record whose length, checksum or epoch is
//! wrong: a record cut short by a crash was never acknowledged.
//!
//! The file is written over, not cut: it is made at least [`PREALLOCATED`]
//! bytes long (zeros written, no hole), grown by doubling when the records
//! between two checkpoints need more, and emptied by a new header with a
//! new random salt. A record then lands in blocks the file has, and its
//! sync writes those alone, not the file's size in its inode too (a
//! second write, which a sync waited for about as long as for the
//! record). The records of earlier salts after the last one are never
//! taken for records: their checksums fail, and no one who writes the
//! store's documents knows the salt to forge one. A file of the first
//! version (`NDWAL\0\0\x01`, no salt, cut at each checkpoint, written by
//! layout 4) is read too, and cut when its writer opens it.

use std::fs::File;
use std::hash::{BuildHasher, Hasher};
use std::io::Read;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use crate::error::{Damage, Error, Result};

/// The write-ahead log's file in a store directory.
pub(crate) const WAL_FILE: &str = "store.wal";

const MAGIC: &[u8; 8] = b"NDWAL\0\0\x02";

/// The magic of the first version: no salt after it.
const MAGIC_1: &[u8; 8] = b"NDWAL\0\0\x01";

/// The magic and the salt.
const HEADER: usize = 16;

/// Length, checksum and epoch before each payload.
const RECORD_HEAD: usize = 16;

/// How long the file is made at the open; it doubles when the records
/// between two checkpoints need more (up to
/// [`crate::checkpoint::CHECKPOINT_BYTES`] and one group commit's).
pub(crate) const PREALLOCATED: u64 = 64 << 10;

/// The writer's write-ahead log, open to append.
#[derive(Debug)]
pub(crate) struct Wal {
    file: File,
    path: PathBuf,
    /// Where the next record goes: the end of the last whole one.
    len: u64,
    /// The epoch its records are of.
    epoch: u64,
    /// The salt its records' checksums start with.
    salt: u64,
    /// The file's length: zeros after the last record.
    size: u64,
    /// Why it takes no more records: a failed emptying or a failed record
    /// left bytes after its last record that a reader could take for
    /// records.
    broken: Option<String>,
}

impl Wal {
    /// Opens the log in `dir` (made when missing) emptied to its header,
    /// for records of `epoch`: called once what it held is checkpointed.
    pub(crate) fn start(dir: &Path, epoch: u64) -> Result<Wal> {
        let path = dir.join(WAL_FILE);
        let io = |e| Error::Io(path.clone(), e);
        let made = !path.exists();
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io)?;
        let mut wal = Wal {
            file,
            path: path.clone(),
            len: 0,
            epoch,
            salt: 0,
            size: 0,
            broken: None,
        };
        // A file of the first version is cut before it is made long: its
        // records checked no salt, and must not stay behind a header of
        // this one.
        let mut magic = [0u8; 8];
        if wal.file.read_exact_at(&mut magic, 0).is_ok() && &magic == MAGIC_1 {
            wal.file.set_len(0).map_err(io)?;
        }
        wal.reset(epoch)?;
        wal.grow(PREALLOCATED).map_err(io)?;
        if made {
            crate::write::sync_dir(dir)?;
        }
        Ok(wal)
    }

    /// Makes the file at least `size` bytes long, with zeros written (a
    /// hole would be given blocks at each record's sync), and syncs its
    /// new length.
    fn grow(&mut self, size: u64) -> std::io::Result<()> {
        let len = self.file.metadata()?.len();
        if len < size {
            let zeros = vec![0u8; (size - len) as usize];
            self.file.write_all_at(&zeros, len)?;
            self.file.sync_all()?;
        }
        self.size = len.max(size);
        Ok(())
    }

    /// Empties the log to its header, with a new salt, for records of
    /// `epoch`.
    pub(crate) fn reset(&mut self, epoch: u64) -> Result<()> {
        let io = |e| Error::Io(self.path.clone(), e);
        let salt = new_salt(epoch);
        let mut header = MAGIC.to_vec();
        header.extend_from_slice(&salt.to_le_bytes());
        let done = self
            .file
            .write_all_at(&header, 0)
            .and_then(|()| self.file.sync_data());
        match done {
            Ok(()) => {
                (self.len, self.epoch, self.salt) = (HEADER as u64, epoch, salt);
                self.broken = None;
                Ok(())
            }
            Err(e) => {
                self.broken = Some(format!("emptying it failed: {e}"));
                Err(io(e))
            }
        }
    }

    /// Appends a record of `payload` and syncs it: on `Ok`, it survives a
    /// crash. On an error the record is made unreadable again.
    pub(crate) fn append(&mut self, payload: &[u8]) -> Result<()> {
        if let Some(why) = &self.broken {
            let e = std::io::Error::other(format!(
                "the write-ahead log takes no more records ({why}): reopen the store"
            ));
            return Err(Error::Io(self.path.clone(), e));
        }
        let Ok(_) = u32::try_from(payload.len()) else {
            let e = std::io::Error::other("a group commit's changes of 4 GiB or more");
            return Err(Error::Io(self.path.clone(), e));
        };
        let record = frame(self.salt, self.epoch, payload);
        let end = self.len + record.len() as u64;
        if end > self.size {
            let size = end.max(self.size.saturating_mul(2));
            self.grow(size)
                .map_err(|e| Error::Io(self.path.clone(), e))?;
        }
        let written = self
            .file
            .write_all_at(&record, self.len)
            .and_then(|()| self.file.sync_data());
        match written {
            Ok(()) => {
                self.len += record.len() as u64;
                Ok(())
            }
            Err(e) => {
                // Its head zeroed, it is no record (its checksum fails).
                let unmade = self
                    .file
                    .write_all_at(&[0u8; RECORD_HEAD], self.len)
                    .and_then(|()| self.file.sync_data());
                if let Err(unmade) = unmade {
                    self.broken = Some(format!("unmaking a failed record failed: {unmade}"));
                }
                Err(Error::Io(self.path.clone(), e))
            }
        }
    }
}

/// A salt for the records of `epoch`: random, so that no payload written
/// under one salt reads as a record under another. Never one under which
/// zeros (the file's preallocated tail, a failed record's head) read as a
/// record.
fn new_salt(epoch: u64) -> u64 {
    let mut n = 0u64;
    loop {
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write_u64(epoch);
        hasher.write_u64(n);
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
        hasher.write_u128(now.map_or(0, |d| d.as_nanos()));
        let salt = hasher.finish();
        if checksum(Some(salt), 0, &[]) != 0 {
            return salt;
        }
        n += 1;
    }
}

/// A record of `payload` in epoch `epoch` under `salt`, as the file holds
/// it.
fn frame(salt: u64, epoch: u64, payload: &[u8]) -> Vec<u8> {
    let mut record = Vec::with_capacity(RECORD_HEAD + payload.len());
    record.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    record.extend_from_slice(&checksum(Some(salt), epoch, payload).to_le_bytes());
    record.extend_from_slice(&epoch.to_le_bytes());
    record.extend_from_slice(payload);
    record
}

/// The checksum of a record: of its salt (none in the first version),
/// epoch and payload.
fn checksum(salt: Option<u64>, epoch: u64, payload: &[u8]) -> u32 {
    let mut crc = crc32fast::Hasher::new();
    if let Some(salt) = salt {
        crc.update(&salt.to_le_bytes());
    }
    crc.update(&epoch.to_le_bytes());
    crc.update(payload);
    crc.finalize()
}

/// The payloads of the records of `epoch` in the log of `dir`, in order
/// (none when it has no log).
///
/// # Errors
///
/// [`Error::Io`] when it cannot be read; [`Error::Format`] when it is not
/// a write-ahead log.
pub(crate) fn read(dir: &Path, epoch: u64) -> Result<Vec<Vec<u8>>> {
    let path = dir.join(WAL_FILE);
    let mut bytes = Vec::new();
    match File::open(&path) {
        Ok(mut file) => file
            .read_to_end(&mut bytes)
            .map_err(|e| Error::Io(path.clone(), e))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::Io(path, e)),
    };
    // Made and its header not yet whole (a crash before it was synced):
    // no record was appended.
    if bytes.len() < HEADER && MAGIC.starts_with(&bytes[..bytes.len().min(MAGIC.len())]) {
        return Ok(Vec::new());
    }
    let (salt, body) = if bytes.starts_with(MAGIC) && bytes.len() >= HEADER {
        let salt = u64::from_le_bytes(bytes[8..HEADER].try_into().unwrap_or_default());
        (Some(salt), &bytes[HEADER..])
    } else if bytes.starts_with(MAGIC_1) {
        (None, &bytes[MAGIC_1.len()..])
    } else {
        return Err(Error::Format(path, Damage::NotWal));
    };
    records(body, salt, epoch).map_err(|record| Error::Format(path, Damage::WalRecord { record }))
}

/// The payloads of the whole records of `epoch` under `salt` at the start
/// of `bytes`; `Err(n)` when record `n` is damaged and a whole record
/// follows it (a record cut short by a crash is the last).
fn records(
    mut bytes: &[u8],
    salt: Option<u64>,
    epoch: u64,
) -> std::result::Result<Vec<Vec<u8>>, usize> {
    let mut out = Vec::new();
    while let Some(record) = Record::at(bytes) {
        if !record.whole(salt) {
            let next = bytes.get(record.end..).and_then(Record::at);
            if next.is_some_and(|n| n.epoch == epoch && n.whole(salt)) {
                return Err(out.len());
            }
            break;
        }
        if record.epoch != epoch {
            break;
        }
        out.push(record.payload.to_vec());
        bytes = &bytes[record.end..];
    }
    Ok(out)
}

/// A record as the file holds it, its checksum not yet checked.
struct Record<'a> {
    crc: u32,
    epoch: u64,
    payload: &'a [u8],
    /// Where the next record starts.
    end: usize,
}

impl<'a> Record<'a> {
    /// The record at the start of `bytes`, if they hold one of its length.
    fn at(bytes: &'a [u8]) -> Option<Record<'a>> {
        let number = |at: usize, n: usize| {
            let mut le = [0u8; 8];
            le[..n].copy_from_slice(bytes.get(at..at + n)?);
            Some(u64::from_le_bytes(le))
        };
        let len = usize::try_from(number(0, 4)?).ok()?;
        let end = RECORD_HEAD.checked_add(len)?;
        Some(Record {
            crc: u32::try_from(number(4, 4)?).ok()?,
            epoch: number(8, 8)?,
            payload: bytes.get(RECORD_HEAD..end)?,
            end,
        })
    }

    /// Whether its checksum holds under `salt`.
    fn whole(&self, salt: Option<u64>) -> bool {
        checksum(salt, self.epoch, self.payload) == self.crc
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The log's file in `dir`, opened to damage it.
    fn file(dir: &Path) -> File {
        let path = dir.join(WAL_FILE);
        std::fs::OpenOptions::new().write(true).open(path).unwrap()
    }

    #[test]
    fn records_of_the_epoch_are_read_back_up_to_a_torn_one() {
        let dir = tempfile::tempdir().unwrap();
        let mut wal = Wal::start(dir.path(), 3).unwrap();
        let size = || std::fs::metadata(dir.path().join(WAL_FILE)).unwrap().len();
        assert_eq!(size(), PREALLOCATED);
        wal.append(b"first").unwrap();
        wal.append(b"").unwrap();
        wal.append(b"third").unwrap();
        assert_eq!(read(dir.path(), 3).unwrap(), [&b"first"[..], b"", b"third"]);
        assert!(read(dir.path(), 4).unwrap().is_empty());
        // The last record torn: a byte of it never written.
        let third = (HEADER + 21 + 16 + 16) as u64;
        file(dir.path()).write_all_at(b"X", third + 4).unwrap();
        assert_eq!(read(dir.path(), 3).unwrap(), [&b"first"[..], b""]);
        // A record damaged before a whole one is an error, naming it.
        wal.reset(3).unwrap();
        wal.append(b"first").unwrap();
        wal.append(b"second").unwrap();
        wal.append(b"third").unwrap();
        let second = (HEADER + 21 + 16) as u64;
        file(dir.path()).write_all_at(b"X", second).unwrap();
        let err = read(dir.path(), 3).unwrap_err().to_string();
        assert!(err.contains("record 1 cannot be read"), "{err}");
        // Emptied for the next epoch: the old records are gone.
        wal.reset(4).unwrap();
        wal.append(b"next").unwrap();
        assert_eq!(read(dir.path(), 4).unwrap(), [&b"next"[..]]);
        assert!(read(dir.path(), 3).unwrap().is_empty());
        // A record past the file's end doubles it.
        let big = vec![7u8; PREALLOCATED as usize];
        wal.append(&big).unwrap();
        assert_eq!(size(), 2 * PREALLOCATED);
        assert_eq!(read(dir.path(), 4).unwrap(), [&b"next"[..], &big]);
    }

    /// Emptied, the file keeps its bytes: what tells the old records from
    /// new ones is the salt, even where their epochs are the same.
    #[test]
    fn records_left_from_an_earlier_salt_are_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let mut wal = Wal::start(dir.path(), 6).unwrap();
        for payload in [&b"old one"[..], b"old two", b"old three"] {
            wal.append(payload).unwrap();
        }
        wal.reset(6).unwrap();
        wal.append(b"new").unwrap();
        assert_eq!(read(dir.path(), 6).unwrap(), [&b"new"[..]]);
        // A record whose head a failed append zeroed is no record either.
        file(dir.path())
            .write_all_at(&[0u8; RECORD_HEAD], HEADER as u64)
            .unwrap();
        assert!(read(dir.path(), 6).unwrap().is_empty());
        assert!(read(dir.path(), 0).unwrap().is_empty());
    }

    /// The file's bytes pinned, as docs/FORMATS.md gives them (the
    /// checksum is CRC-32/ISO-HDLC, zlib's), for a salt set by hand.
    #[test]
    fn a_log_of_one_record_is_the_documented_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let mut wal = Wal::start(dir.path(), 3).unwrap();
        wal.salt = 0x0807_0605_0403_0201;
        wal.file.write_all_at(&wal.salt.to_le_bytes(), 8).unwrap();
        wal.append(b"first").unwrap();
        let bytes = std::fs::read(dir.path().join(WAL_FILE)).unwrap();
        let hex: String = bytes[..HEADER + 21]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let expected = [
            "4e4457414c000002",
            "0102030405060708",
            "05000000",
            "f680105a",
            "0300000000000000",
            "6669727374",
        ];
        assert_eq!(hex, expected.concat());
        assert!(bytes[HEADER + 21..].iter().all(|&b| b == 0));
    }

    /// Layout 4 wrote the first version: read, then emptied at the open.
    #[test]
    fn a_log_of_the_first_version_is_read_then_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let mut bytes = MAGIC_1.to_vec();
        bytes.extend_from_slice(&3u32.to_le_bytes());
        bytes.extend_from_slice(&[0x98, 0xa9, 0xa0, 0x82]);
        bytes.extend_from_slice(&7u64.to_le_bytes());
        bytes.extend_from_slice(b"old");
        std::fs::write(dir.path().join(WAL_FILE), &bytes).unwrap();
        assert_eq!(read(dir.path(), 7).unwrap(), [&b"old"[..]]);
        let mut wal = Wal::start(dir.path(), 8).unwrap();
        assert!(read(dir.path(), 7).unwrap().is_empty());
        wal.append(b"new").unwrap();
        assert_eq!(read(dir.path(), 8).unwrap(), [&b"new"[..]]);
    }

    #[test]
    fn another_file_is_refused_and_a_missing_one_is_empty() {
        let dir = tempfile::tempdir().unwrap();
        assert!(read(dir.path(), 0).unwrap().is_empty());
        // Made, its header cut short by a crash.
        let header = [&MAGIC[..], &[7u8; 8]].concat();
        for cut in [0, 5, 12] {
            std::fs::write(dir.path().join(WAL_FILE), &header[..cut]).unwrap();
            assert!(read(dir.path(), 0).unwrap().is_empty());
        }
        std::fs::write(dir.path().join(WAL_FILE), b"not a log").unwrap();
        let err = read(dir.path(), 0).unwrap_err().to_string();
        assert!(
            err.contains(WAL_FILE) && err.contains("write-ahead"),
            "{err}"
        );
    }
}
