//! The write-ahead log (`store.wal`): every group commit's changes
//! appended to one file and synced, so that a write is acknowledged after
//! one small sync rather than a transaction of the log (`log.rs`), whose
//! commit writes and syncs pages across its file twice.
//!
//! ```text
//! header:  magic "NDWAL\0\0\x01" (8 bytes)
//! record:  payload length u32 | crc32 u32 (of epoch and payload) | epoch u64 | payload
//! ```
//! All numbers little-endian. The payload is a group commit's changes
//! (`change.rs`). The epoch is the checkpoint the records follow: the
//! log's manifest names the last checkpoint's (`wal_epoch`), and only
//! records of that epoch are read back; the others are what a checkpoint
//! already holds (a crash between its commit and the log's truncation).
//! Reading stops at the first record whose length, checksum or epoch is
//! wrong: a record cut short by a crash was never acknowledged.

use std::fs::File;
use std::io::Read;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use crate::error::{Damage, Error, Result};

/// The write-ahead log's file in a store directory.
pub(crate) const WAL_FILE: &str = "store.wal";

const MAGIC: &[u8; 8] = b"NDWAL\0\0\x01";

/// Length, checksum and epoch before each payload.
const RECORD_HEAD: usize = 16;

/// The writer's write-ahead log, open to append.
#[derive(Debug)]
pub(crate) struct Wal {
    file: File,
    path: PathBuf,
    /// Where the next record goes: the end of the last whole one.
    len: u64,
    /// The epoch its records are of.
    epoch: u64,
    /// Why it takes no more records: a failed truncation left bytes after
    /// its last record that a reader could take for records.
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
            broken: None,
        };
        wal.reset(epoch)?;
        if made {
            crate::write::sync_dir(dir)?;
        }
        Ok(wal)
    }

    /// Empties the log to its header, for records of `epoch`.
    pub(crate) fn reset(&mut self, epoch: u64) -> Result<()> {
        let io = |e| Error::Io(self.path.clone(), e);
        // The header first: a reader never finds a file of zeros.
        let done = self
            .file
            .write_all_at(MAGIC, 0)
            .and_then(|()| self.file.set_len(MAGIC.len() as u64))
            .and_then(|()| self.file.sync_data());
        match done {
            Ok(()) => {
                (self.len, self.epoch, self.broken) = (MAGIC.len() as u64, epoch, None);
                Ok(())
            }
            Err(e) => {
                self.broken = Some(format!("its truncation failed: {e}"));
                Err(io(e))
            }
        }
    }

    /// Appends a record of `payload` and syncs it: on `Ok`, it survives a
    /// crash. On an error the log is cut back to its last whole record.
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
        let record = frame(self.epoch, payload);
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
                if let Err(cut) = self.file.set_len(self.len) {
                    self.broken = Some(format!("cutting a failed record failed: {cut}"));
                }
                Err(Error::Io(self.path.clone(), e))
            }
        }
    }
}

/// A record of `payload` in epoch `epoch`, as the file holds it.
fn frame(epoch: u64, payload: &[u8]) -> Vec<u8> {
    let mut crc = crc32fast::Hasher::new();
    crc.update(&epoch.to_le_bytes());
    crc.update(payload);
    let mut record = Vec::with_capacity(RECORD_HEAD + payload.len());
    record.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    record.extend_from_slice(&crc.finalize().to_le_bytes());
    record.extend_from_slice(&epoch.to_le_bytes());
    record.extend_from_slice(payload);
    record
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
    // Made and not yet written (a crash before its header was synced).
    if bytes.is_empty() {
        return Ok(Vec::new());
    }
    if !bytes.starts_with(MAGIC) {
        return Err(Error::Format(path, Damage::NotWal));
    }
    records(&bytes[MAGIC.len()..], epoch)
        .map_err(|record| Error::Format(path, Damage::WalRecord { record }))
}

/// The payloads of the whole records of `epoch` at the start of `bytes`;
/// `Err(n)` when record `n` is damaged and a whole record follows it (a
/// record cut short by a crash is the last).
fn records(mut bytes: &[u8], epoch: u64) -> std::result::Result<Vec<Vec<u8>>, usize> {
    let mut out = Vec::new();
    while let Some(record) = Record::at(bytes) {
        if record.epoch != epoch {
            break;
        }
        if !record.whole() {
            let next = bytes.get(record.end..).and_then(Record::at);
            if next.is_some_and(|n| n.epoch == epoch && n.whole()) {
                return Err(out.len());
            }
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

    /// Whether its checksum holds.
    fn whole(&self) -> bool {
        let mut check = crc32fast::Hasher::new();
        check.update(&self.epoch.to_le_bytes());
        check.update(self.payload);
        check.finalize() == self.crc
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_of_the_epoch_are_read_back_up_to_a_torn_one() {
        let dir = tempfile::tempdir().unwrap();
        let mut wal = Wal::start(dir.path(), 3).unwrap();
        wal.append(b"first").unwrap();
        wal.append(b"").unwrap();
        wal.append(b"third").unwrap();
        assert_eq!(read(dir.path(), 3).unwrap(), [&b"first"[..], b"", b"third"]);
        assert!(read(dir.path(), 4).unwrap().is_empty());
        // The last record cut short, then a byte of it changed.
        let path = dir.path().join(WAL_FILE);
        let len = std::fs::metadata(&path).unwrap().len();
        let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        file.set_len(len - 1).unwrap();
        assert_eq!(read(dir.path(), 3).unwrap(), [&b"first"[..], b""]);
        file.write_all_at(b"X", len - 9).unwrap();
        file.set_len(len).unwrap();
        assert_eq!(read(dir.path(), 3).unwrap(), [&b"first"[..], b""]);
        // A record damaged before a whole one is an error, naming it.
        wal.reset(3).unwrap();
        wal.append(b"first").unwrap();
        wal.append(b"second").unwrap();
        wal.append(b"third").unwrap();
        file.write_all_at(b"X", 8 + 21 + 16).unwrap();
        let err = read(dir.path(), 3).unwrap_err().to_string();
        assert!(err.contains("record 1 cannot be read"), "{err}");
        // Emptied for the next epoch: the old records are gone.
        wal.reset(4).unwrap();
        wal.append(b"next").unwrap();
        assert_eq!(read(dir.path(), 4).unwrap(), [&b"next"[..]]);
        assert!(read(dir.path(), 3).unwrap().is_empty());
    }

    /// The file's bytes pinned, as docs/FORMATS.md gives them (the
    /// checksum is CRC-32/ISO-HDLC, zlib's).
    #[test]
    fn a_log_of_one_record_is_the_documented_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let mut wal = Wal::start(dir.path(), 3).unwrap();
        wal.append(b"first").unwrap();
        let bytes = std::fs::read(dir.path().join(WAL_FILE)).unwrap();
        let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let expected = [
            "4e4457414c000001",
            "05000000",
            "0633ede6",
            "0300000000000000",
            "6669727374",
        ];
        assert_eq!(hex, expected.concat());
    }

    #[test]
    fn another_file_is_refused_and_a_missing_one_is_empty() {
        let dir = tempfile::tempdir().unwrap();
        assert!(read(dir.path(), 0).unwrap().is_empty());
        std::fs::write(dir.path().join(WAL_FILE), b"not a log").unwrap();
        let err = read(dir.path(), 0).unwrap_err().to_string();
        assert!(
            err.contains(WAL_FILE) && err.contains("write-ahead"),
            "{err}"
        );
    }
}
