//! A write's changes to the log's tables, as the write-ahead log records
//! them (`wal.rs`) and as they are made again from it: in the writer's
//! transaction after a batch that failed halfway, at the open after a
//! crash, and in a reader's view of the writes since the last checkpoint.
//!
//! ```text
//! payload: changes, one after another
//! insert:  1 | id | seq u64 | record length u32, record | key count u32, keys u64…
//! delete:  2 | id | key count u32, keys u64… | 1 | seq u64              (a recent document)
//!                                             | 2 | segment u64 | entry u32 (a segment's)
//! id:      length u32, UTF-8
//! ```
//! All numbers little-endian; a record is a [`crate::StoredDocument`]'s
//! bytes.

use std::path::Path;

use redb::{Table, WriteTransaction};

use crate::StoredDocument;
use crate::error::Result;
use crate::log::{BARE, DELETED, DOCUMENTS, GONE, KEYED, KEYS_OF, Logged, RECENT};

/// One change a write makes.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Change {
    /// A document stored: its record, its recent row, its keys.
    Insert {
        id: String,
        seq: u64,
        record: Vec<u8>,
        keys: Vec<u64>,
    },
    /// A document deleted, with the keys it was stored under, from where
    /// its fingerprint is.
    Delete {
        id: String,
        keys: Vec<u64>,
        from: Deleted,
    },
}

/// Where a deleted document's fingerprint was.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Deleted {
    /// Among the recent (or frozen) documents: its recent row goes.
    Recent { seq: u64 },
    /// In a segment: the entry is marked deleted.
    Segment { segment: u64, entry: u32 },
}

const INSERT: u8 = 1;
const DELETE: u8 = 2;
const RECENT_ROW: u8 = 1;
const SEGMENT_ENTRY: u8 = 2;

/// The payload of `changes`.
pub(crate) fn encode(changes: &[Change]) -> Vec<u8> {
    let mut out = Vec::new();
    let text = |out: &mut Vec<u8>, bytes: &[u8]| {
        out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
        out.extend_from_slice(bytes);
    };
    let keys = |out: &mut Vec<u8>, keys: &[u64]| {
        out.extend_from_slice(&(keys.len() as u32).to_le_bytes());
        keys.iter()
            .for_each(|k| out.extend_from_slice(&k.to_le_bytes()));
    };
    for change in changes {
        match change {
            Change::Insert {
                id,
                seq,
                record,
                keys: k,
            } => {
                out.push(INSERT);
                text(&mut out, id.as_bytes());
                out.extend_from_slice(&seq.to_le_bytes());
                text(&mut out, record);
                keys(&mut out, k);
            }
            Change::Delete { id, keys: k, from } => {
                out.push(DELETE);
                text(&mut out, id.as_bytes());
                keys(&mut out, k);
                match from {
                    Deleted::Recent { seq } => {
                        out.push(RECENT_ROW);
                        out.extend_from_slice(&seq.to_le_bytes());
                    }
                    Deleted::Segment { segment, entry } => {
                        out.push(SEGMENT_ENTRY);
                        out.extend_from_slice(&segment.to_le_bytes());
                        out.extend_from_slice(&entry.to_le_bytes());
                    }
                }
            }
        }
    }
    out
}

/// The changes `payload` encodes, or `None` when it does not read as
/// changes.
pub(crate) fn decode(payload: &[u8]) -> Option<Vec<Change>> {
    let mut reader = Reader(payload);
    let mut changes = Vec::new();
    while let Some(tag) = reader.byte() {
        let change = match tag {
            INSERT => Change::Insert {
                id: reader.id()?,
                seq: reader.u64()?,
                record: reader.bytes()?.to_vec(),
                keys: reader.keys()?,
            },
            DELETE => Change::Delete {
                id: reader.id()?,
                keys: reader.keys()?,
                from: match reader.byte()? {
                    RECENT_ROW => Deleted::Recent { seq: reader.u64()? },
                    SEGMENT_ENTRY => Deleted::Segment {
                        segment: reader.u64()?,
                        entry: u32::try_from(reader.u32()?).ok()?,
                    },
                    _ => return None,
                },
            },
            _ => return None,
        };
        changes.push(change);
    }
    Some(changes)
}

/// Reads a payload from its start.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let (head, rest) = (self.0.get(..n)?, self.0.get(n..)?);
        self.0 = rest;
        Some(head)
    }

    fn byte(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }

    fn u32(&mut self) -> Option<u64> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?).into())
    }

    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    fn bytes(&mut self) -> Option<&'a [u8]> {
        let len = usize::try_from(self.u32()?).ok()?;
        self.take(len)
    }

    fn id(&mut self) -> Option<String> {
        Some(std::str::from_utf8(self.bytes()?).ok()?.to_string())
    }

    fn keys(&mut self) -> Option<Vec<u64>> {
        let n = usize::try_from(self.u32()?).ok()?;
        // A count past what is left is damage, not an allocation to make.
        if n > self.0.len() / 8 {
            return None;
        }
        (0..n).map(|_| self.u64()).collect()
    }
}

/// The log's tables a write changes, open in the writer's transaction.
pub(crate) struct LogTables<'t> {
    pub(crate) documents: Table<'t, &'static str, &'static [u8]>,
    pub(crate) recent: Table<'t, u64, &'static str>,
    pub(crate) bare: Table<'t, u64, &'static [u8]>,
    pub(crate) gone: Table<'t, &'static str, ()>,
    pub(crate) deleted: Table<'t, (u64, u32), ()>,
    pub(crate) keyed: Table<'t, (u64, &'static str), ()>,
    pub(crate) keys_of: Table<'t, &'static str, &'static [u8]>,
}

impl<'t> LogTables<'t> {
    /// The tables, opened in `txn`.
    pub(crate) fn open(txn: &'t WriteTransaction, dir: &Path) -> Result<LogTables<'t>> {
        Ok(LogTables {
            documents: txn.open_table(DOCUMENTS).logged(dir)?,
            recent: txn.open_table(RECENT).logged(dir)?,
            bare: txn.open_table(BARE).logged(dir)?,
            gone: txn.open_table(GONE).logged(dir)?,
            deleted: txn.open_table(DELETED).logged(dir)?,
            keyed: txn.open_table(KEYED).logged(dir)?,
            keys_of: txn.open_table(KEYS_OF).logged(dir)?,
        })
    }

    /// Makes `change`: the same change to the same tables gives the same
    /// tables, so a write made again from the write-ahead log leaves them
    /// as the write did.
    pub(crate) fn apply(&mut self, change: &Change, dir: &Path) -> Result<()> {
        match change {
            Change::Insert {
                id,
                seq,
                record,
                keys,
            } => {
                let id = id.as_str();
                // By sequence number when bare: appended (`records.rs`).
                match StoredDocument::has_more(record) {
                    true => self.documents.insert(id, record.as_slice()).logged(dir)?,
                    false => self.bare.insert(seq, record.as_slice()).logged(dir)?,
                };
                self.recent.insert(seq, id).logged(dir)?;
                // Its record here is found first (`cold.rs`).
                self.gone.remove(id).logged(dir)?;
                if !keys.is_empty() {
                    for &key in keys {
                        self.keyed.insert((key, id), ()).logged(dir)?;
                    }
                    let bytes: Vec<u8> = keys.iter().flat_map(|k| k.to_le_bytes()).collect();
                    self.keys_of.insert(id, bytes.as_slice()).logged(dir)?;
                }
            }
            Change::Delete { id, keys, from } => {
                let id = id.as_str();
                self.documents.remove(id).logged(dir)?;
                // Whether or not the documents file holds its record (a
                // flush under way may be copying it there).
                self.gone.insert(id, ()).logged(dir)?;
                self.keys_of.remove(id).logged(dir)?;
                for &key in keys {
                    self.keyed.remove((key, id)).logged(dir)?;
                }
                match *from {
                    Deleted::Recent { seq } => {
                        self.recent.remove(seq).logged(dir)?;
                        self.bare.remove(seq).logged(dir)?;
                    }
                    Deleted::Segment { segment, entry } => {
                        self.deleted.insert((segment, entry), ()).logged(dir)?;
                    }
                }
            }
        }
        Ok(())
    }
}

/// The keys of a `keys_of` record: 8 bytes each, little-endian.
pub(crate) fn decode_keys(bytes: &[u8]) -> Vec<u64> {
    bytes
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_read_back_as_written_and_damage_is_refused() {
        let changes = vec![
            Change::Insert {
                id: "a\u{e9}".into(),
                seq: 7,
                record: vec![1, 2, 3],
                keys: vec![9, u64::MAX],
            },
            Change::Delete {
                id: "b".into(),
                keys: vec![],
                from: Deleted::Recent { seq: 3 },
            },
            Change::Delete {
                id: String::new(),
                keys: vec![4],
                from: Deleted::Segment {
                    segment: 2,
                    entry: u32::MAX,
                },
            },
        ];
        let payload = encode(&changes);
        assert_eq!(decode(&payload), Some(changes));
        assert_eq!(decode(&[]), Some(vec![]));
        for cut in 1..payload.len() {
            assert_ne!(decode(&payload[..cut]).map(|c| c.len()), Some(3), "{cut}");
        }
        assert_eq!(decode(&[3]), None);
    }

    /// The write-ahead log is a file format: its changes' bytes pinned,
    /// as docs/FORMATS.md gives them.
    #[test]
    fn changes_encode_to_the_documented_bytes() {
        let changes = [
            Change::Insert {
                id: "a".into(),
                seq: 7,
                record: vec![1, 2, 3],
                keys: vec![9],
            },
            Change::Delete {
                id: "b".into(),
                keys: vec![],
                from: Deleted::Recent { seq: 3 },
            },
            Change::Delete {
                id: "c".into(),
                keys: vec![4],
                from: Deleted::Segment {
                    segment: 2,
                    entry: 5,
                },
            },
        ];
        let hex: String = encode(&changes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let expected = [
            "01",
            "0100000061",
            "0700000000000000",
            "03000000010203",
            "010000000900000000000000",
            "02",
            "0100000062",
            "00000000",
            "01",
            "0300000000000000",
            "02",
            "0100000063",
            "010000000400000000000000",
            "02",
            "0200000000000000",
            "05000000",
        ];
        assert_eq!(hex, expected.concat());
    }
}
