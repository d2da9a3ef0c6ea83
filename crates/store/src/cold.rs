//! The documents file (`documents.redb`): the records of the segment
//! documents that have a text or metadata, and of every document of the
//! segments a former build wrote, kept apart from the log that every write
//! commits.
//!
//! A redb commit that spares an open after a crash the full repair (quick
//! repair) writes and syncs the state of the whole file's page allocator:
//! about a megabyte at 10⁸ documents, which made each group commit of the
//! log take 5–10 ms when the log held every record. So the log holds only
//! what is not in a segment yet, and the flush that writes a segment moves
//! the records of its documents that have a text or metadata here, in one
//! commit of this file per flush; the others need none beyond their
//! segment entry (`records.rs`, which also says the order reads follow).
//! A flush moves records in three steps, and every lookup is right at any
//! moment between, a crash included:
//!
//! 1. before the segment is written, this file takes the frozen documents'
//!    records that have a text or metadata from the log and drops the ids
//!    the log names gone ([`take_records`], from one snapshot of the log;
//!    the segment entries of those it took have `IN_DOCUMENTS_FILE` set,
//!    `records.rs`);
//! 2. once the segment is swapped in, the log drops the frozen documents'
//!    records it holds by id (step 1 says which), a few hundred at a time,
//!    in the writer's open transaction ([`drop_moved`]; the bare ones,
//!    kept by sequence number, with their recent rows; committed with the
//!    next checkpoint): dropped all at once, they held the writer, and
//!    every write behind it, 40–70 ms a flush;
//! 3. the log drops those gone rows ([`drop_gone`], in the flush's swap).
//!
//! Until step 2 has dropped it, a record is in the log and in the segment
//! or here (the log's is found first), and until step 3 the gone rows hide
//! ids this file no longer holds. A delete always writes a gone row, so a
//! record copied here by a flush under way stays hidden once its document
//! is deleted; an insert drops its id's gone row (its record in the log is
//! found first). A reader takes its snapshot of the log before this
//! file's and the view after both, so that it sees step 2 only if it also
//! sees the segment and step 1.

use std::collections::HashSet;
use std::path::Path;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use redb::{ReadOnlyTable, ReadableTable, TableDefinition};

use neardup_index::WriterLock;

use crate::StoredDocument;
use crate::error::Result;
use crate::log::{BARE, DOCUMENTS, GONE, Log, Logged, open_if_made};

/// The documents file in a store directory.
pub(crate) const COLD_FILE: &str = "documents.redb";

/// Its one table: id → [`crate::StoredDocument`] bytes.
const RECORDS: TableDefinition<&str, &[u8]> = TableDefinition::new("documents");

/// The documents file as the store opened it. A reader of a store that
/// has none yet (made at layout 1 and not written since) opens it once it
/// appears.
#[derive(Debug)]
pub(crate) struct Cold {
    log: OnceLock<Log>,
    /// The commits [`take_records`] made, counted after each ends: a
    /// snapshot taken since the last is as new as the file.
    commits: AtomicU64,
}

impl Cold {
    /// The writer's: made when missing.
    pub(crate) fn for_writer(dir: &Path) -> Result<Cold> {
        let log = OnceLock::new();
        let _ = log.set(Log::create_file(dir, COLD_FILE)?);
        Ok(Cold {
            log,
            commits: AtomicU64::new(0),
        })
    }

    /// A reader's; `lock` as [`Log::for_reading`]'s.
    pub(crate) fn for_reader(dir: &Path, lock: &mut Option<WriterLock>) -> Result<Cold> {
        let cold = Cold {
            log: OnceLock::new(),
            commits: AtomicU64::new(0),
        };
        cold.open(dir, lock)?;
        Ok(cold)
    }

    fn log(&self, dir: &Path) -> Result<Option<&Log>> {
        self.open(dir, &mut None)
    }

    fn open(&self, dir: &Path, lock: &mut Option<WriterLock>) -> Result<Option<&Log>> {
        if let Some(log) = self.log.get() {
            return Ok(Some(log));
        }
        if !dir.join(COLD_FILE).exists() {
            return Ok(None);
        }
        let _ = self.log.set(Log::file_for_reading(dir, COLD_FILE, lock)?);
        Ok(self.log.get())
    }

    /// A snapshot of its records, as of its last commit.
    pub(crate) fn snapshot(&self, dir: &Path) -> Result<ColdRead> {
        // Counted first: a commit ending in between makes the snapshot
        // newer than its count says, never older.
        let commits = self.commits.load(Ordering::Acquire);
        let Some(log) = self.log(dir)? else {
            return Ok(ColdRead {
                table: None,
                commits,
            });
        };
        let txn = log.begin_read(dir)?;
        let table = match txn.open_table(RECORDS) {
            Ok(table) => Some(table),
            Err(redb::TableError::TableDoesNotExist(_)) => None,
            Err(e) => return Err(e).logged_in(dir, COLD_FILE),
        };
        Ok(ColdRead { table, commits })
    }

    /// `held` again if no commit of this file ended since it was taken,
    /// else a new snapshot. The writer keeps its snapshot between group
    /// commits: taking one waits while the file commits (redb holds its
    /// header through a commit's sync), which a flush's does for up to
    /// 10 ms at 10⁸ documents, and a group commit that took one each time
    /// waited with it.
    pub(crate) fn snapshot_since(&self, dir: &Path, held: Option<ColdRead>) -> Result<ColdRead> {
        match held {
            Some(held) if held.commits == self.commits.load(Ordering::Acquire) => Ok(held),
            _ => self.snapshot(dir),
        }
    }
}

/// A snapshot of the documents file's records.
pub(crate) struct ColdRead {
    table: Option<ReadOnlyTable<&'static str, &'static [u8]>>,
    /// [`Cold`]'s commits when it was taken.
    commits: u64,
}

impl std::fmt::Debug for ColdRead {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ColdRead(after {} commits)", self.commits)
    }
}

impl ColdRead {
    /// The record of `id` in this snapshot, if any.
    pub(crate) fn get(&self, id: &str, dir: &Path) -> Result<Option<Vec<u8>>> {
        let Some(table) = &self.table else {
            return Ok(None);
        };
        let found = table.get(id).logged_in(dir, COLD_FILE)?;
        Ok(found.map(|bytes| bytes.value().to_vec()))
    }
}

/// What step 1 of a flush found and did ([`take_records`]).
#[derive(Debug)]
pub(crate) struct Taken<'a> {
    /// The ids the log names gone, for [`drop_gone`].
    pub(crate) gone: Vec<String>,
    /// The sequence numbers of the documents whose records are in the
    /// documents file, whose segment entries say so (`records.rs`): those
    /// it took, and those the log holds no record of, by id or bare (a
    /// flush of a former build moved them here before it stopped).
    pub(crate) in_documents_file: HashSet<u64>,
    /// The documents whose records the log's id-keyed table holds (those
    /// it took, and bare ones a former layout kept there): the only ones
    /// step 2 ([`drop_moved`]) has to drop. A bare document of this
    /// layout has its record dropped with its recent row, by sequence
    /// number; looked up by id in every round, 65,536 of them held the
    /// writer 128 times a flush for nothing.
    pub(crate) in_log: Vec<(&'a str, u64)>,
}

/// Step 1 of a flush: the documents file takes the records the log holds
/// for `docs` (id and sequence number; a record of another sequence number
/// is a later insert of the id, left in the log) that have a text or
/// metadata, and drops every id the log names gone, in one commit (none
/// when there is neither). `docs` are in key order: each leaf of the
/// table is then written once.
pub(crate) fn take_records<'a>(
    log: &Log,
    cold: &Cold,
    dir: &Path,
    docs: &[(&'a str, u64)],
) -> Result<Taken<'a>> {
    let snapshot = log.begin_read(dir)?;
    let documents = snapshot.open_table(DOCUMENTS).logged(dir)?;
    let mut gone = Vec::new();
    for row in snapshot.open_table(GONE).logged(dir)?.iter().logged(dir)? {
        gone.push(row.logged(dir)?.0.value().to_string());
    }
    let bare = open_if_made(&snapshot, BARE, dir)?;
    let mut here = HashSet::new();
    let mut in_log = Vec::new();
    let mut take = Vec::new();
    for &(id, seq) in docs {
        if gone.binary_search_by(|g| g.as_str().cmp(id)).is_ok() {
            continue;
        }
        match documents.get(id).logged(dir)? {
            Some(bytes) if seq_of(bytes.value()) == Some(seq) => {
                in_log.push((id, seq));
                if StoredDocument::has_more(bytes.value()) {
                    take.push(id);
                    here.insert(seq);
                }
            }
            Some(_) => {}
            // Bare (its record by sequence number), or moved here by a
            // flush of a former build.
            None => {
                let bare = match &bare {
                    Some(bare) => bare.get(seq).logged(dir)?.is_some(),
                    None => false,
                };
                if !bare {
                    here.insert(seq);
                }
            }
        }
    }
    let taken = Taken {
        gone,
        in_documents_file: here,
        in_log,
    };
    let Some(cold_log) = cold.log(dir)? else {
        return Ok(taken);
    };
    if take.is_empty() && taken.gone.is_empty() {
        return Ok(taken);
    }
    let txn = cold_log.begin(dir)?;
    {
        let mut table = txn.open_table(RECORDS).logged_in(dir, COLD_FILE)?;
        // Read one at a time from the snapshot, the records (texts too)
        // are never all held.
        for id in take {
            if let Some(bytes) = documents.get(id).logged(dir)? {
                table.insert(id, bytes.value()).logged_in(dir, COLD_FILE)?;
            }
        }
        for id in &taken.gone {
            table.remove(id.as_str()).logged_in(dir, COLD_FILE)?;
        }
    }
    txn.commit().logged_in(dir, COLD_FILE)?;
    cold.commits.fetch_add(1, Ordering::Release);
    Ok(taken)
}

/// Step 2, in rounds: the log drops the records of `docs`, the flushed
/// documents, once their segment is in (those of the same sequence
/// number; another is a later insert of the id), in `txn`, the writer's,
/// in one of the short holds of the writer lock the flush takes between
/// the group commits.
pub(crate) fn drop_moved(
    txn: &redb::WriteTransaction,
    dir: &Path,
    docs: &[(&str, u64)],
) -> Result<()> {
    let mut documents = txn.open_table(DOCUMENTS).logged(dir)?;
    for &(id, seq) in docs {
        let here = documents.get(id).logged(dir)?.map(|b| seq_of(b.value()));
        // Not moved, or damaged: kept.
        if here == Some(Some(seq)) {
            documents.remove(id).logged(dir)?;
        }
    }
    Ok(())
}

/// Step 3, within the flush's swap `txn`: the log drops the `gone` rows
/// that [`take_records`] applied.
pub(crate) fn drop_gone(txn: &redb::WriteTransaction, dir: &Path, gone: &[String]) -> Result<()> {
    let mut table = txn.open_table(GONE).logged(dir)?;
    for id in gone {
        table.remove(id.as_str()).logged(dir)?;
    }
    Ok(())
}

/// The sequence number a record starts with ([`crate::StoredDocument`]).
fn seq_of(bytes: &[u8]) -> Option<u64> {
    Some(u64::from_le_bytes(bytes.get(..8)?.try_into().ok()?))
}

/// The ids the documents file holds records of, in key order.
#[cfg(test)]
pub(crate) fn ids_in_file(cold: &Cold, dir: &Path) -> Vec<String> {
    let Some(table) = cold.snapshot(dir).unwrap().table else {
        return Vec::new();
    };
    let rows = table.iter().unwrap();
    rows.map(|row| row.unwrap().0.value().to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Insert, Store, StoreOptions, StoreSettings, Write, Written};
    use redb::ReadableTableMetadata;

    fn write(store: &Store<u64>, writes: Vec<Write<u64>>) -> Vec<Written> {
        store.write(writes, None).unwrap()
    }

    fn insert(id: &str, fingerprint: u64) -> Write<u64> {
        Write::Insert(Insert::new(fingerprint, 3).id(id).text(id))
    }

    fn fingerprint(store: &Store<u64>, id: &str) -> Option<u128> {
        store.get(id).unwrap().map(|d| d.fingerprint)
    }

    /// A store of texts that flushes every 10 documents and never merges.
    fn open_flushing_at_10(dir: &Path) -> Store<u64> {
        let settings = StoreSettings::builder(3).texts(true).build();
        let options = StoreOptions::builder()
            .flush_at(10)
            .merge_factor(usize::MAX)
            .build();
        Store::<u64>::open(dir, Some(&settings), options).unwrap()
    }

    /// The ids and sequence numbers of stored documents, as a flush moves
    /// them (`ids` in key order).
    fn stored_docs(store: &Store<u64>, ids: &[&str]) -> Vec<(String, u64)> {
        ids.iter()
            .map(|id| (id.to_string(), store.get(id).unwrap().unwrap().seq))
            .collect()
    }

    /// Commits the writer's transaction as a checkpoint, with `change`
    /// made in it: as a flush's steps do.
    fn checkpoint(store: &Store<u64>, change: impl FnOnce(&redb::WriteTransaction) -> Result<()>) {
        let inner = &store.inner;
        inner
            .checkpoint_with(&mut inner.lock_writer(), change)
            .unwrap();
    }

    /// Whether the log's own table holds a record of `id`.
    fn in_log(store: &Store<u64>, id: &str) -> bool {
        let dir = store.inner.dir.as_path();
        let txn = store.inner.db.begin_read(dir).unwrap();
        let table = txn.open_table(DOCUMENTS).unwrap();
        table.get(id).unwrap().is_some()
    }

    #[test]
    fn a_flush_stopped_between_its_two_commits_leaves_every_record_right() {
        let dir = tempfile::tempdir().unwrap();
        let open = || open_flushing_at_10(dir.path());
        let store = open();
        write(
            &store,
            (0..10).map(|i| insert(&format!("d{i}"), i << 12)).collect(),
        );
        store.wait_for_flush();
        // Flushed: the records moved to the documents file, and the log's
        // drops of them committed with the next checkpoint.
        checkpoint(&store, |_| Ok(()));
        assert!(!in_log(&store, "d1"));
        assert_eq!(fingerprint(&store, "d1"), Some(1 << 12));
        // A flushed document deleted and written again, a recent one
        // deleted, others recent.
        let mut writes = vec![Write::Delete("d0".into())];
        writes.extend((10..15).map(|i| insert(&format!("d{i}"), i << 12)));
        writes.push(Write::Delete("d11".into()));
        writes.push(insert("d0", 7));
        writes.push(Write::Delete("d1".into()));
        write(&store, writes);
        // The first commit of a flush of the recent documents, and no
        // second: what a kill between them leaves.
        let recent = stored_docs(&store, &["d0", "d10", "d12", "d13", "d14"]);
        let docs: Vec<(&str, u64)> = recent.iter().map(|(id, seq)| (id.as_str(), *seq)).collect();
        checkpoint(&store, |_| Ok(()));
        let taken = take_records(&store.inner.db, &store.inner.cold, dir.path(), &docs).unwrap();
        // d0 written again has no gone row: its record in the log is found first.
        assert_eq!(taken.gone, ["d1", "d11"]);
        drop(store);
        let check = |store: &Store<u64>, documents: usize| {
            assert_eq!(fingerprint(store, "d0"), Some(7));
            assert_eq!(fingerprint(store, "d1"), None);
            assert_eq!(fingerprint(store, "d2"), Some(2 << 12));
            assert_eq!(fingerprint(store, "d10"), Some(10 << 12));
            assert_eq!(fingerprint(store, "d11"), None);
            assert_eq!(store.stats().documents, documents);
        };
        let store = open();
        check(&store, 13);
        check(&Store::<u64>::open_read_only(dir.path()).unwrap(), 13);
        // Ids deleted, written and taken as the records say.
        let written = write(
            &store,
            vec![
                insert("d1", 1),
                insert("d2", 2),
                Write::Delete("d11".into()),
            ],
        );
        assert!(
            matches!(&written[0], Written::Inserted { .. }),
            "{written:?}"
        );
        assert!(
            matches!(&written[1], Written::IdTaken { .. }),
            "{written:?}"
        );
        assert!(
            matches!(&written[2], Written::Missing { .. }),
            "{written:?}"
        );
        write(&store, vec![Write::Delete("d1".into())]);
        // The next flush ends the move: the log keeps no record of a
        // flushed document, and no gone row.
        write(
            &store,
            (20..26)
                .map(|i| insert(&format!("d{i}"), i << 12))
                .collect(),
        );
        store.wait_for_flush();
        checkpoint(&store, |_| Ok(()));
        assert_eq!(store.stats().recent, 0);
        for id in ["d0", "d10", "d20"] {
            assert!(!in_log(&store, id), "{id}");
        }
        let txn = store.inner.db.begin_read(dir.path()).unwrap();
        assert_eq!(txn.open_table(GONE).unwrap().len().unwrap(), 0);
        drop(txn);
        check(&store, 19);
        drop(store);
        check(&open(), 19);
    }

    /// Step 2 drops by id only the records the log holds by id: a
    /// document with neither text nor metadata keeps its record by
    /// sequence number, dropped with its recent row.
    #[test]
    fn step_2_is_given_only_the_records_the_log_holds_by_id() {
        let dir = tempfile::tempdir().unwrap();
        let store = open_flushing_at_10(dir.path());
        let bare = |id: &str, fp| Write::Insert(Insert::new(fp, 3).id(id));
        write(
            &store,
            vec![
                insert("a", 1 << 12),
                bare("b", 2 << 12),
                insert("c", 3 << 12),
            ],
        );
        checkpoint(&store, |_| Ok(()));
        let docs = stored_docs(&store, &["a", "b", "c"]);
        let docs: Vec<(&str, u64)> = docs.iter().map(|(id, seq)| (id.as_str(), *seq)).collect();
        let taken = take_records(&store.inner.db, &store.inner.cold, dir.path(), &docs).unwrap();
        assert_eq!(taken.in_log, [docs[0], docs[2]]);
        assert_eq!(
            taken.in_documents_file,
            HashSet::from([docs[0].1, docs[2].1])
        );
    }

    #[test]
    fn an_id_whose_record_a_flush_moved_before_its_swap_is_taken() {
        let dir = tempfile::tempdir().unwrap();
        let store = open_flushing_at_10(dir.path());
        let inner = &store.inner;
        // Ten written while a flush seems to run, so that none starts;
        // then frozen, as a write that finds them recent does.
        *inner.flushing.lock().unwrap() = true;
        write(
            &store,
            (0..10).map(|i| insert(&format!("d{i}"), i << 12)).collect(),
        );
        *inner.flushing.lock().unwrap() = false;
        let due = store.flush_due(&mut inner.lock_writer()).unwrap();
        assert!(matches!(due, crate::flush::FlushDue::Start(_)));
        // Steps 1 and 2 as a flush of a former build made them, before its
        // swap: the frozen documents' records are in the documents file
        // alone, their segment not swapped in.
        let ids: Vec<String> = (0..10).map(|i| format!("d{i}")).collect();
        let mut docs = stored_docs(&store, &ids.iter().map(String::as_str).collect::<Vec<_>>());
        docs.sort_unstable();
        let docs: Vec<(&str, u64)> = docs.iter().map(|(id, seq)| (id.as_str(), *seq)).collect();
        checkpoint(&store, |_| Ok(()));
        take_records(&inner.db, &inner.cold, dir.path(), &docs).unwrap();
        checkpoint(&store, |txn| drop_moved(txn, dir.path(), &docs));
        assert!(!in_log(&store, "d3"));
        let written = write(&store, vec![insert("d3", 1), insert("e1", 2)]);
        assert!(
            matches!(&written[0], Written::IdTaken { .. }),
            "{written:?}"
        );
        assert!(
            matches!(&written[1], Written::Inserted { .. }),
            "{written:?}"
        );
        // The flush ends; the id is in its segment now.
        store.flush_as_due(due).unwrap();
        store.wait_for_flush();
        let written = write(&store, vec![insert("d3", 1)]);
        assert!(
            matches!(&written[0], Written::IdTaken { .. }),
            "{written:?}"
        );
        assert_eq!(store.stats().documents, 11);
    }

    #[test]
    fn a_flush_stopped_before_its_swap_leaves_its_documents_recent_and_found() {
        let dir = tempfile::tempdir().unwrap();
        let open = || open_flushing_at_10(dir.path());
        let store = open();
        write(
            &store,
            (0..5).map(|i| insert(&format!("d{i}"), i << 12)).collect(),
        );
        // Steps 1 and 2 of a flush of the five as a former build made them,
        // and no swap: their records are in the documents file only (the rounds' commits made durable
        // by a later one), their rows still on the log's recent list.
        let docs = stored_docs(&store, &["d0", "d1", "d2", "d3", "d4"]);
        let docs: Vec<(&str, u64)> = docs.iter().map(|(id, seq)| (id.as_str(), *seq)).collect();
        let dir_path = dir.path();
        checkpoint(&store, |_| Ok(()));
        take_records(&store.inner.db, &store.inner.cold, dir_path, &docs).unwrap();
        checkpoint(&store, |txn| drop_moved(txn, dir_path, &docs));
        assert!(!in_log(&store, "d1"));
        write(&store, vec![Write::Delete("d2".into())]);
        drop(store);
        let check = |store: &Store<u64>| {
            assert_eq!(store.stats().recent, 4);
            assert_eq!(fingerprint(store, "d1"), Some(1 << 12));
            assert_eq!(fingerprint(store, "d2"), None);
            assert_eq!(store.query(3 << 12, 0).unwrap()[0].id, "d3");
        };
        let store = open();
        check(&store);
        check(&Store::<u64>::open_read_only(dir_path).unwrap());
        // Taken and deleted as the records say; the next flush moves them.
        let written = write(&store, vec![insert("d1", 1), Write::Delete("d3".into())]);
        assert!(
            matches!(&written[0], Written::IdTaken { .. }),
            "{written:?}"
        );
        assert!(
            matches!(&written[1], Written::Deleted { .. }),
            "{written:?}"
        );
        write(
            &store,
            (10..17)
                .map(|i| insert(&format!("d{i}"), i << 12))
                .collect(),
        );
        store.wait_for_flush();
        checkpoint(&store, |_| Ok(()));
        assert_eq!(store.stats().recent, 0);
        assert_eq!(store.stats().documents, 10);
        for id in ["d0", "d1", "d10"] {
            assert!(!in_log(&store, id), "{id}");
        }
        drop(store);
        let store = open();
        assert_eq!(fingerprint(&store, "d1"), Some(1 << 12));
        assert_eq!(fingerprint(&store, "d3"), None);
        assert_eq!(fingerprint(&store, "d16"), Some(16 << 12));
        assert!(store.query(3 << 12, 0).unwrap().is_empty());
    }
}
