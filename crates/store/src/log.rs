//! The transactional log: one redb database in the store's directory.
//!
//! | table | key → value | holds |
//! |---|---|---|
//! | `manifest` | name → text | layout version, settings, segment numbers, counters |
//! | `documents` | id → [`Document`](crate::Document) bytes | every stored document |
//! | `recent` | sequence number → id | documents in no segment yet |
//! | `deleted` | (segment, entry) → () | segment entries whose document is deleted |
//!
//! A write is acknowledged only once its transaction is committed (redb
//! syncs it to disk, checksummed), so a crash at any moment leaves the
//! store as of its last acknowledged write. Segments are written before the
//! transaction that names them commits; a file no committed manifest names
//! is a leftover, removed on open.

use std::path::Path;

use redb::{ReadableDatabase, ReadableTable, TableDefinition, WriteTransaction};

use crate::error::{Error, Result};

pub(crate) const MANIFEST: TableDefinition<&str, &str> = TableDefinition::new("manifest");
pub(crate) const DOCUMENTS: TableDefinition<&str, &[u8]> = TableDefinition::new("documents");
pub(crate) const RECENT: TableDefinition<u64, &str> = TableDefinition::new("recent");
pub(crate) const DELETED: TableDefinition<(u64, u32), ()> = TableDefinition::new("deleted");

/// The version of the store's layout.
pub(crate) const LAYOUT_VERSION: &str = "1";

/// The log's file in a store directory.
pub(crate) const LOG_FILE: &str = "store.redb";

/// Turns a redb error into the store's, naming the log file.
pub(crate) trait Logged<T> {
    fn logged(self, dir: &Path) -> Result<T>;
}

impl<T, E: std::fmt::Display> Logged<T> for std::result::Result<T, E> {
    fn logged(self, dir: &Path) -> Result<T> {
        self.map_err(|e| Error::Log(dir.join(LOG_FILE), e.to_string()))
    }
}

/// A write transaction that records its allocator state, so that opening
/// the log after a crash takes no full repair.
pub(crate) fn begin(db: &redb::Database, dir: &Path) -> Result<WriteTransaction> {
    let mut txn = db.begin_write().logged(dir)?;
    txn.set_quick_repair(true);
    Ok(txn)
}

/// The manifest's entries, read.
pub(crate) struct Manifest {
    pub(crate) layout: Option<String>,
    pub(crate) settings: Option<String>,
    pub(crate) segments: Vec<u64>,
    pub(crate) next_segment: u64,
    pub(crate) next_seq: u64,
}

pub(crate) fn read_manifest(db: &redb::Database, dir: &Path) -> Result<Manifest> {
    let txn = db.begin_read().logged(dir)?;
    let table = match txn.open_table(MANIFEST) {
        Ok(t) => t,
        Err(redb::TableError::TableDoesNotExist(_)) => {
            return Ok(Manifest {
                layout: None,
                settings: None,
                segments: Vec::new(),
                next_segment: 1,
                next_seq: 0,
            });
        }
        Err(e) => return Err(e).logged(dir),
    };
    let get = |name: &str| -> Result<Option<String>> {
        Ok(table.get(name).logged(dir)?.map(|v| v.value().to_string()))
    };
    let bad = |what: &str| Error::Format(dir.join(LOG_FILE), format!("its manifest's {what}"));
    let number = |name: &str, default: u64| -> Result<u64> {
        get(name)?.map_or(Ok(default), |v| {
            v.parse()
                .map_err(|_| bad(&format!("{name} {v:?} is not a number")))
        })
    };
    let segments = match get("segments")? {
        None => Vec::new(),
        Some(list) if list.is_empty() => Vec::new(),
        Some(list) => list
            .split(',')
            .map(|n| {
                n.parse()
                    .map_err(|_| bad(&format!("segment list {list:?}")))
            })
            .collect::<Result<_>>()?,
    };
    Ok(Manifest {
        layout: get("layout")?,
        settings: get("settings")?,
        segments,
        next_segment: number("next_segment", 1)?,
        next_seq: number("next_seq", 0)?,
    })
}

/// Records `name` = `value` in the manifest, within `txn`.
pub(crate) fn set(txn: &WriteTransaction, dir: &Path, name: &str, value: &str) -> Result<()> {
    let mut table = txn.open_table(MANIFEST).logged(dir)?;
    table.insert(name, value).logged(dir)?;
    Ok(())
}

/// Records the segment list, and the next segment's number, within `txn`.
pub(crate) fn set_segments(
    txn: &WriteTransaction,
    dir: &Path,
    numbers: &[u64],
    next_segment: u64,
) -> Result<()> {
    let list: Vec<String> = numbers.iter().map(u64::to_string).collect();
    set(txn, dir, "segments", &list.join(","))?;
    set(txn, dir, "next_segment", &next_segment.to_string())
}

/// Every entry of table `deleted`, in order.
pub(crate) fn deleted_entries(db: &redb::Database, dir: &Path) -> Result<Vec<(u64, u32)>> {
    let txn = db.begin_read().logged(dir)?;
    let table = match txn.open_table(DELETED) {
        Ok(t) => t,
        Err(redb::TableError::TableDoesNotExist(_)) => return Ok(Vec::new()),
        Err(e) => return Err(e).logged(dir),
    };
    let mut out = Vec::new();
    for entry in table.iter().logged(dir)? {
        let (key, _) = entry.logged(dir)?;
        out.push(key.value());
    }
    Ok(out)
}
