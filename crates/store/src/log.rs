//! The transactional log: one redb database in the store's directory.
//!
//! | table | key → value | holds |
//! |---|---|---|
//! | `manifest` | name → text | layout version, settings, segment numbers, counters, the last checkpoint's epoch |
//! | `documents` | id → [`StoredDocument`](crate::StoredDocument) bytes | documents in no segment yet (in a store made at layout 1, the earlier ones too) |
//! | `recent` | sequence number → id | documents in no segment yet |
//! | `gone` | id → () | documents deleted since the last flush, whose records the documents file may hold |
//! | `deleted` | (segment, entry) → () | segment entries whose document is deleted |
//! | `keyed` | (short-document key, id) → () | documents by their short-document keys |
//! | `keys_of` | id → keys | each keyed document's keys, to remove them with it |
//! | `last_batch` | id → () | the ids of the last labelled batch (`batch.rs`); absent in stores made before |
//!
//! The records of documents in segments are in the documents file
//! (`cold.rs`), moved there by the flush that wrote their segment.
//!
//! A write is acknowledged once its changes are in the write-ahead log
//! (`wal.rs`), synced; the log takes them in its next checkpoint
//! (`checkpoint.rs`), a transaction that redb syncs to disk, checksummed.
//! A crash at any moment leaves the store as of its last acknowledged
//! write: the log's last checkpoint and the write-ahead log's records
//! after it. Segments are written before the
//! transaction that names them commits; a file no committed manifest names
//! is a leftover, removed on open.

use std::path::Path;

use redb::{ReadTransaction, ReadableDatabase, ReadableTable, TableDefinition, WriteTransaction};

use neardup_index::{LOCK_FILE, WriterLock};

use crate::error::{Damage, Error, Result};

/// How long a reader that must repair a file waits for the store's lock:
/// a lock let go a moment before (by [`crate::StoreSettings::of`], say)
/// may still be held by a child another thread forked with its file open,
/// until that child execs; a writer that holds it for good still refuses
/// the reader, a second later.
const REPAIR_LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(1);

pub(crate) const MANIFEST: TableDefinition<&str, &str> = TableDefinition::new("manifest");
pub(crate) const DOCUMENTS: TableDefinition<&str, &[u8]> = TableDefinition::new("documents");
pub(crate) const RECENT: TableDefinition<u64, &str> = TableDefinition::new("recent");
/// The records of recent documents with neither text nor metadata, by
/// sequence number (`records.rs`): appended, where `documents`, keyed by
/// id, takes a second of ids that sort anywhere at most of its leaves.
pub(crate) const BARE: TableDefinition<u64, &[u8]> = TableDefinition::new("bare");
pub(crate) const DELETED: TableDefinition<(u64, u32), ()> = TableDefinition::new("deleted");
pub(crate) const KEYED: TableDefinition<(u64, &str), ()> = TableDefinition::new("keyed");
pub(crate) const KEYS_OF: TableDefinition<&str, &[u8]> = TableDefinition::new("keys_of");
pub(crate) const LAST_BATCH: TableDefinition<&str, ()> = TableDefinition::new("last_batch");
pub(crate) const GONE: TableDefinition<&str, ()> = TableDefinition::new("gone");

/// The version of the store's layout: its files, the log's tables and the
/// encoding of their records (docs/FORMATS.md). A store of another layout
/// is refused; a golden store (`crates/store/tests/golden/`) pins this one.
///
/// Layout 2 moved the records of documents in segments to the documents
/// file. Layout 3 lets a still recent document's record be there alone (a
/// flush that dropped the log's copies and stopped before its swap,
/// `cold.rs`). Layout 4 acknowledges writes through the write-ahead log
/// (`store.wal`, `wal.rs`), which the log's checkpoints follow. Layout 5
/// writes the write-ahead log over rather than cutting it, each emptying
/// with a new salt (its second version). Layout 6 leaves a flush's rows
/// of the recent list below the manifest's `recent_from`, unread, until
/// they are dropped. Layout 7 writes segments of format 2, which carry a
/// filter of their names (`neardup_index::NameHash`). Layout 8 writes
/// segments of format 3, with each entry's sequence number and a table of
/// names, and keeps a segment document's record there unless it has a
/// text or metadata (`records.rs`). Layout 9 keeps the records of recent
/// documents with neither in the log's `bare` table, by sequence number,
/// rather than in `documents`, by id. Stores of layouts 1 to 8 are still
/// opened (a store of layout 1 keeps its records in the log, where they
/// are found first), and their writer records the present layout at once,
/// so that an older build, which would miss records in the documents file,
/// the write-ahead log or the segments, read flushed rows as recent, or
/// find segments of a format it does not read, refuses them.
pub const STORE_LAYOUT: &str = "9";

/// The layouts before [`STORE_LAYOUT`], still opened.
pub(crate) const FORMER_LAYOUTS: [&str; 8] = ["1", "2", "3", "4", "5", "6", "7", "8"];

/// The log's file in a store directory.
pub(crate) const LOG_FILE: &str = "store.redb";

/// Turns a redb error into the store's, naming the log file (or
/// another database of the store).
pub(crate) trait Logged<T> {
    fn logged(self, dir: &Path) -> Result<T>;
    fn logged_in(self, dir: &Path, file: &str) -> Result<T>;
}

impl<T, E: Into<redb::Error>> Logged<T> for std::result::Result<T, E> {
    fn logged(self, dir: &Path) -> Result<T> {
        self.logged_in(dir, LOG_FILE)
    }

    fn logged_in(self, dir: &Path, file: &str) -> Result<T> {
        self.map_err(|e| Error::Log(dir.join(file), e.into()))
    }
}

/// The log, or the documents file (`cold.rs`): a redb database of the
/// store, opened by the store's one writer or by one of its readers.
///
/// Both open it in redb's single-writer mode: one process writes, any
/// number of others may read at once, each from the snapshot of its
/// transaction, and none waits for another.
pub(crate) struct Log {
    db: Db,
    /// Its file's name in the store's directory, which errors give.
    file: &'static str,
    /// Whether its commits record the allocator's state (redb's quick
    /// repair), so that the open after a crash takes no full repair: the
    /// documents file's do (gigabytes at 10⁸, which a full repair would
    /// walk; it commits once a flush), the log's do not (a full repair of
    /// its few megabytes takes a fraction of a second, and the record and
    /// the second sync cost a third of every group commit's time).
    quick_repair: bool,
}

enum Db {
    /// The writer's (which holds the store's lock).
    Writer(redb::Database),
    /// A reader's.
    Reader(redb::ReadOnlyDatabase),
}

impl std::fmt::Debug for Log {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let role = match self.db {
            Db::Writer(_) => "writer",
            Db::Reader(_) => "reader",
        };
        write!(f, "Log({}, {role})", self.file)
    }
}

fn builder() -> redb::Builder {
    let mut builder = redb::Builder::new();
    builder.set_concurrency_mode(redb::ConcurrencyMode::SingleWriter);
    builder
}

impl Log {
    /// Opens the log in `dir` to write, creating it when missing, and
    /// repairing it when its last writer was killed.
    pub(crate) fn create(dir: &Path) -> Result<Log> {
        Log::create_file(dir, LOG_FILE)
    }

    /// Opens database `file` in `dir` to write, as [`Log::create`].
    pub(crate) fn create_file(dir: &Path, file: &'static str) -> Result<Log> {
        let db = builder().create(dir.join(file)).logged_in(dir, file)?;
        Ok(Log {
            db: Db::Writer(db),
            file,
            quick_repair: file != LOG_FILE,
        })
    }

    /// Opens database `file` in `dir` to read only. One whose writer was
    /// killed needs the repair its next writer makes: `Err(None)` then.
    fn open_reader(dir: &Path, file: &'static str) -> std::result::Result<Log, Option<Error>> {
        match builder().open_read_only(dir.join(file)) {
            Ok(db) => Ok(Log {
                db: Db::Reader(db),
                file,
                quick_repair: false,
            }),
            Err(redb::DatabaseError::RepairAborted) => Err(None),
            Err(e) => Err(Some(Error::Log(dir.join(file), e.into()))),
        }
    }

    /// Opens the log of the store in `dir` to read only, beside its writer
    /// if one runs. A log whose writer was killed is first repaired, as its
    /// next writer would, under the store's lock, taken into `lock` (and
    /// kept there, for the documents file's repair: a lock let go and
    /// taken again at once can find itself still held, by a child another
    /// thread forked with the lock's file open, until that child execs).
    pub(crate) fn for_reading(dir: &Path, lock: &mut Option<WriterLock>) -> Result<Log> {
        if !dir.join(LOG_FILE).exists() {
            return Err(Error::NoStore {
                dir: dir.to_path_buf(),
            });
        }
        Log::file_for_reading(dir, LOG_FILE, lock)
    }

    /// Opens database `file` in `dir` to read only, as [`Log::for_reading`].
    pub(crate) fn file_for_reading(
        dir: &Path,
        file: &'static str,
        lock: &mut Option<WriterLock>,
    ) -> Result<Log> {
        match Log::open_reader(dir, file) {
            Ok(log) => Ok(log),
            Err(Some(e)) => Err(e),
            Err(None) => {
                if lock.is_none() {
                    *lock = Some(WriterLock::acquire_waiting(
                        dir,
                        LOCK_FILE,
                        "a store",
                        REPAIR_LOCK_WAIT,
                    )?);
                }
                drop(Log::create_file(dir, file)?);
                Log::open_reader(dir, file).map_err(|e| {
                    e.unwrap_or_else(|| Error::Format(dir.join(file), Damage::NeedsRepair))
                })
            }
        }
    }

    /// A read transaction: a snapshot of the last commit.
    pub(crate) fn begin_read(&self, dir: &Path) -> Result<ReadTransaction> {
        match &self.db {
            Db::Writer(db) => db.begin_read().logged_in(dir, self.file),
            Db::Reader(db) => db.begin_read().logged_in(dir, self.file),
        }
    }

    /// Refused to a reader: [`Error::ReadOnly`].
    pub(crate) fn check_writer(&self, dir: &Path) -> Result<()> {
        match self.db {
            Db::Writer(_) => Ok(()),
            Db::Reader(_) => Err(Error::ReadOnly {
                dir: dir.to_path_buf(),
            }),
        }
    }

    /// A write transaction; refused to a reader. The documents file's
    /// record their allocator state ([`Log::quick_repair`]).
    ///
    /// That record is the size of the file's allocator (about a megabyte
    /// at 7.6 GB), written and synced at each commit: why the log that
    /// every write commits holds only what is not in a segment yet, and
    /// the records of the rest are in the documents file (`cold.rs`),
    /// committed once a flush.
    pub(crate) fn begin(&self, dir: &Path) -> Result<WriteTransaction> {
        let Db::Writer(db) = &self.db else {
            return Err(Error::ReadOnly {
                dir: dir.to_path_buf(),
            });
        };
        let mut txn = db.begin_write().logged_in(dir, self.file)?;
        txn.set_quick_repair(self.quick_repair);
        Ok(txn)
    }
}

/// The manifest's entries, read.
pub(crate) struct Manifest {
    pub(crate) layout: Option<String>,
    pub(crate) settings: Option<String>,
    pub(crate) segments: Vec<u64>,
    pub(crate) next_segment: u64,
    pub(crate) next_seq: u64,
    /// The last checkpoint's epoch: the write-ahead log's records of it
    /// follow the log's last commit (`checkpoint.rs`).
    pub(crate) wal_epoch: u64,
    /// The first sequence number of a recent document: rows of `recent`
    /// below it are of flushed documents, left to drop (`flush.rs`).
    pub(crate) recent_from: u64,
    /// The label of the last batch (`batch.rs`).
    pub(crate) last_batch: Option<String>,
}

pub(crate) fn read_manifest(txn: &ReadTransaction, dir: &Path) -> Result<Manifest> {
    let table = match txn.open_table(MANIFEST) {
        Ok(t) => t,
        Err(redb::TableError::TableDoesNotExist(_)) => {
            return Ok(Manifest {
                layout: None,
                settings: None,
                segments: Vec::new(),
                next_segment: 1,
                next_seq: 0,
                wal_epoch: 0,
                recent_from: 0,
                last_batch: None,
            });
        }
        Err(e) => return Err(e).logged(dir),
    };
    let get = |name: &str| -> Result<Option<String>> {
        Ok(table.get(name).logged(dir)?.map(|v| v.value().to_string()))
    };
    let bad = |entry: &str, value: &str, expected| {
        let (entry, value) = (entry.to_string(), value.to_string());
        Error::Format(
            dir.join(LOG_FILE),
            Damage::Manifest {
                entry,
                value,
                expected,
            },
        )
    };
    let number = |name: &str, default: u64| -> Result<u64> {
        get(name)?.map_or(Ok(default), |v| {
            v.parse().map_err(|_| bad(name, &v, "a number"))
        })
    };
    let segments = match get("segments")? {
        None => Vec::new(),
        Some(list) if list.is_empty() => Vec::new(),
        Some(list) => list
            .split(',')
            .map(|n| {
                n.parse()
                    .map_err(|_| bad("segments", &list, "a list of segment numbers"))
            })
            .collect::<Result<_>>()?,
    };
    Ok(Manifest {
        layout: get("layout")?,
        settings: get("settings")?,
        segments,
        next_segment: number("next_segment", 1)?,
        next_seq: number("next_seq", 0)?,
        wal_epoch: number("wal_epoch", 0)?,
        recent_from: number("recent_from", 0)?,
        last_batch: get("last_batch")?,
    })
}

/// Records `name` = `value` in the manifest, within `txn`.
pub(crate) fn set(txn: &WriteTransaction, dir: &Path, name: &str, value: &str) -> Result<()> {
    let mut table = txn.open_table(MANIFEST).logged(dir)?;
    table.insert(name, value).logged(dir)?;
    Ok(())
}

/// Removes `name` from the manifest, within `txn`.
pub(crate) fn unset(txn: &WriteTransaction, dir: &Path, name: &str) -> Result<()> {
    let mut table = txn.open_table(MANIFEST).logged(dir)?;
    table.remove(name).logged(dir)?;
    Ok(())
}

/// Table `table` of snapshot `txn`, or `None` in a store never written
/// since the layout that added it.
pub(crate) fn open_if_made<K: redb::Key + 'static, V: redb::Value + 'static>(
    txn: &redb::ReadTransaction,
    table: TableDefinition<K, V>,
    dir: &Path,
) -> Result<Option<redb::ReadOnlyTable<K, V>>> {
    match txn.open_table(table) {
        Ok(table) => Ok(Some(table)),
        Err(redb::TableError::TableDoesNotExist(_)) => Ok(None),
        Err(e) => Err(e).logged(dir),
    }
}

/// Drops up to `most` rows of `recent`, and as many of `bare`, of sequence
/// numbers below `below` (rows of flushed documents: the manifest's
/// `recent_from`), within `txn`; returns the most it dropped of either.
pub(crate) fn drop_recent_rows(
    txn: &WriteTransaction,
    dir: &Path,
    below: u64,
    most: usize,
) -> Result<usize> {
    let recent = drop_rows_below(txn, dir, RECENT, below, most)?;
    let bare = drop_rows_below(txn, dir, BARE, below, most)?;
    Ok(recent.max(bare))
}

/// Drops up to `most` rows of `table` keyed below `below`; returns how
/// many it dropped.
fn drop_rows_below<V: redb::Value + 'static>(
    txn: &WriteTransaction,
    dir: &Path,
    table: TableDefinition<u64, V>,
    below: u64,
    most: usize,
) -> Result<usize> {
    let mut table = txn.open_table(table).logged(dir)?;
    let mut last = None;
    let mut dropped = 0;
    for row in table.range(..below).logged(dir)?.take(most) {
        last = Some(row.logged(dir)?.0.value());
        dropped += 1;
    }
    if let Some(last) = last {
        // One pass over the leaves, not a removal per row.
        table.retain_in(..=last, |_, _| false).logged(dir)?;
    }
    Ok(dropped)
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
pub(crate) fn deleted_entries(txn: &ReadTransaction, dir: &Path) -> Result<Vec<(u64, u32)>> {
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
