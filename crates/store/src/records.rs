//! Where a stored document's record is, and the one order every read
//! (the writer's, [`crate::Store::get`], a reader's) follows to find it.
//!
//! The record of `id` is the first of:
//!
//! 1. the log's `documents` table: the documents not in a segment yet
//!    that have a text or metadata, and those a flush wrote to one whose
//!    records the log has not dropped yet (it drops them after the segment
//!    is swapped in, `flush.rs`);
//! 2. none, when the log's `gone` table names the id (deleted, its record
//!    maybe still in the documents file till the next flush);
//! 3. the log's `bare` table, by the sequence number of the live recent or
//!    frozen document of the id ([`View::unflushed_seq`]): the records of
//!    those with neither text nor metadata, appended by sequence number;
//! 4. a live (not deleted) entry of the id in a segment of the present
//!    format, found by the segment's table of names: its sequence number
//!    and fingerprint are the record, unless the number's top bit
//!    ([`IN_DOCUMENTS_FILE`]) says the record (with a text or metadata) is
//!    in the documents file;
//! 5. the documents file, by id, when the view cannot rule the id out of
//!    it ([`View::may_be_in_documents_file`]): a segment of a former format
//!    may hold the id (their records are all there), or a recent or frozen
//!    document has it (a flush of a former build moved records there
//!    before its swap).
//!
//! So a document with neither text nor metadata is written by sequence
//! number, in the log and then in its segment, and never keyed by id: with
//! ids that sort anywhere, a B-tree keyed by them has one leaf written a
//! record. The documents file took 7 s a flush of 65,536 at 10⁸ documents,
//! and the log's checkpoints, at 20,000 inserts a second, 10.7 ms each
//! against 2.5 without ids: writes wait for both.
//!
//! A record the documents file keeps after its document was deleted and
//! its id inserted again (the insert drops the gone row) is never read:
//! the new document is in the log (1, 3) or a segment (4) until deleted,
//! and then the gone row (2) hides the id until the flush after drops the
//! stale record with it.

use std::path::Path;

use neardup_index::{Bits, NameHash};
use redb::{ReadOnlyTable, ReadTransaction, ReadableTable};

use crate::StoredDocument;
use crate::cold::{Cold, ColdRead};
use crate::error::Result;
use crate::log::{BARE, DOCUMENTS, GONE, Logged, open_if_made};
use crate::view::{View, is_set};

/// The top bit of a segment entry's sequence number: the document's record
/// (it has a text or metadata) is in the documents file, keyed by id.
pub(crate) const IN_DOCUMENTS_FILE: u64 = 1 << 63;

/// The sequence number a merge gives an entry of a segment of a former
/// format, which has none: its record, sequence number included, is in the
/// documents file.
pub(crate) const FORMER_SEQ: u64 = u64::MAX;

/// The log's tables a record is looked up in (`None`: missing in a store
/// never written since the layout that added it).
pub(crate) struct LogRecords<'a, D, G, R> {
    pub(crate) documents: Option<&'a D>,
    pub(crate) gone: Option<&'a G>,
    pub(crate) bare: Option<&'a R>,
}

/// The record of `id`, in the order of the module's doc: the log's
/// `documents`, `gone` and `bare`, the view's segments, then the documents
/// file (`cold`).
pub(crate) fn find<B: Bits, D, G, R>(
    log: LogRecords<'_, D, G, R>,
    cold: &ColdRead,
    view: &View<B>,
    id: &str,
    dir: &Path,
) -> Result<Option<Vec<u8>>>
where
    D: ReadableTable<&'static str, &'static [u8]>,
    G: ReadableTable<&'static str, ()>,
    R: ReadableTable<u64, &'static [u8]>,
{
    let LogRecords {
        documents,
        gone,
        bare,
    } = log;
    // Hashed once for every place it is looked up in.
    let hash = NameHash::of(id);
    if let Some(documents) = documents
        && let Some(bytes) = documents.get(id).logged(dir)?
    {
        return Ok(Some(bytes.value().to_vec()));
    }
    if let Some(gone) = gone
        && gone.get(id).logged(dir)?.is_some()
    {
        return Ok(None);
    }
    if let Some(bare) = bare
        && let Some(seq) = view.unflushed_seq(id, &hash)
        && let Some(bytes) = bare.get(seq).logged(dir)?
    {
        return Ok(Some(bytes.value().to_vec()));
    }
    match in_segments(view, id, &hash) {
        InSegments::Record(doc) => Ok(Some(doc.encode())),
        InSegments::InDocumentsFile => cold.get(id, dir),
        InSegments::None if view.may_be_in_documents_file(&hash) => cold.get(id, dir),
        InSegments::None => Ok(None),
    }
}

/// What the segments of the present format say of an id.
enum InSegments {
    /// A live entry whose sequence number and fingerprint are its record.
    Record(StoredDocument),
    /// A live entry whose record is in the documents file.
    InDocumentsFile,
    /// No live entry.
    None,
}

/// Step 4 of the module's order: the live entry of `id` in a segment of
/// the present format, if any (a store holds one live document an id).
fn in_segments<B: Bits>(view: &View<B>, id: &str, hash: &NameHash) -> InSegments {
    for live in &view.segments {
        let Some(entries) = live.segment.entries_named(id, hash) else {
            continue;
        };
        let deleted = view.deleted.get(&live.number);
        for entry in entries {
            if deleted.is_some_and(|bits| is_set(bits, entry)) {
                continue;
            }
            let (Some(seq), Some(fingerprint)) = (
                live.segment.seq(entry),
                live.segment.fingerprints().get(entry as usize),
            ) else {
                continue;
            };
            if seq & IN_DOCUMENTS_FILE != 0 {
                return InSegments::InDocumentsFile;
            }
            return InSegments::Record(StoredDocument {
                seq,
                fingerprint: fingerprint.to_u128(),
                text: None,
                metadata: None,
            });
        }
    }
    InSegments::None
}

/// One snapshot of the records, for the store's reads: the log's tables
/// (missing in a store never written since layout 1) and the documents
/// file's, taken after the log's.
pub(crate) struct Records {
    documents: Option<ReadOnlyTable<&'static str, &'static [u8]>>,
    gone: Option<ReadOnlyTable<&'static str, ()>>,
    bare: Option<ReadOnlyTable<u64, &'static [u8]>>,
    cold: ColdRead,
}

impl Records {
    /// The records as of `txn`, a snapshot of the log, and of the
    /// documents file's last commit.
    pub(crate) fn read(txn: &ReadTransaction, cold: &Cold, dir: &Path) -> Result<Records> {
        Ok(Records {
            documents: open_if_made(txn, DOCUMENTS, dir)?,
            gone: open_if_made(txn, GONE, dir)?,
            bare: open_if_made(txn, BARE, dir)?,
            cold: cold.snapshot(dir)?,
        })
    }

    /// The record of `id`, if stored, `view` giving the segments (taken
    /// after this snapshot of the log: it holds every segment whose
    /// documents' records the log has dropped).
    pub(crate) fn get<B: Bits>(
        &self,
        id: &str,
        dir: &Path,
        view: &View<B>,
    ) -> Result<Option<Vec<u8>>> {
        let log = LogRecords {
            documents: self.documents.as_ref(),
            gone: self.gone.as_ref(),
            bare: self.bare.as_ref(),
        };
        find(log, &self.cold, view, id, dir)
    }

    /// The record of recent document `id` of sequence number `seq`, as
    /// the open reads it before the view has it: the log's (by id, or by
    /// sequence number when bare), or the documents file's (where a flush
    /// of a former build moved it before its swap).
    pub(crate) fn get_recent(&self, id: &str, seq: u64, dir: &Path) -> Result<Option<Vec<u8>>> {
        if let Some(documents) = &self.documents
            && let Some(bytes) = documents.get(id).logged(dir)?
        {
            return Ok(Some(bytes.value().to_vec()));
        }
        if let Some(bare) = &self.bare
            && let Some(bytes) = bare.get(seq).logged(dir)?
        {
            return Ok(Some(bytes.value().to_vec()));
        }
        if let Some(gone) = &self.gone
            && gone.get(id).logged(dir)?.is_some()
        {
            return Ok(None);
        }
        self.cold.get(id, dir)
    }
}

#[cfg(test)]
mod tests {
    use redb::ReadableTableMetadata;

    use crate::cold::ids_in_file;
    use crate::log::{BARE, DOCUMENTS};
    use crate::{Insert, Store, StoreOptions, StoreSettings, Write, Written};

    /// A store without texts that flushes every `flush_at` documents,
    /// merging `merge_factor` segments of a size.
    fn open(dir: &std::path::Path, flush_at: usize, merge_factor: usize) -> Store<u64> {
        let settings = StoreSettings::builder(3).build();
        let options = StoreOptions::builder()
            .flush_at(flush_at)
            .merge_factor(merge_factor)
            .build();
        Store::<u64>::open(dir, Some(&settings), options).unwrap()
    }

    fn insert(id: &str, fingerprint: u64, metadata: Option<&str>) -> Write<u64> {
        let mut insert = Insert::new(fingerprint, 3).id(id);
        insert.metadata = metadata.map(str::to_string);
        Write::Insert(insert)
    }

    fn write(store: &Store<u64>, writes: Vec<Write<u64>>) -> Vec<Written> {
        store.write(writes, None).unwrap()
    }

    /// The fingerprint and metadata of `id`, as the store reads them.
    fn read(store: &Store<u64>, id: &str) -> Option<(u128, Option<String>)> {
        let doc = store.get(id).unwrap()?;
        Some((doc.fingerprint, doc.metadata))
    }

    #[test]
    fn a_flush_moves_only_the_records_with_metadata_and_segments_give_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        let store = open(dir.path(), 10, usize::MAX);
        let writes = (0..10)
            .map(|i| insert(&format!("d{i}"), i << 12, (i == 5).then_some("{\"a\":1}")))
            .collect();
        write(&store, writes);
        let seqs: Vec<u64> = (0..10)
            .map(|i| store.get(&format!("d{i}")).unwrap().unwrap().seq)
            .collect();
        store.wait_for_flush();
        let inner = &store.inner;
        inner
            .checkpoint_with(&mut inner.lock_writer(), |_| Ok(()))
            .unwrap();
        assert_eq!(ids_in_file(&inner.cold, dir.path()), ["d5"]);
        // The others' records are their segment entries: sequence number
        // and fingerprint, no metadata.
        let d3 = store.get("d3").unwrap().unwrap();
        assert_eq!(
            (d3.seq, d3.fingerprint, d3.metadata),
            (seqs[3], 3 << 12, None)
        );
        assert_eq!(
            read(&store, "d5"),
            Some((5 << 12, Some("{\"a\":1}".into())))
        );
        let written = write(&store, vec![insert("d3", 1, None), insert("x", 2, None)]);
        assert!(
            matches!(&written[0], Written::IdTaken { .. }),
            "{written:?}"
        );
        // Deleted and written again, without metadata: the documents file
        // keeps d5's former record, which is read no more.
        write(
            &store,
            vec![
                Write::Delete("d3".into()),
                Write::Delete("d5".into()),
                insert("d5", 7, None),
            ],
        );
        assert_eq!(read(&store, "d3"), None);
        assert_eq!(read(&store, "d5"), Some((7, None)));
        let more = (10..19).map(|i| insert(&format!("d{i}"), i << 12, None));
        write(&store, more.collect());
        store.wait_for_flush();
        assert_eq!(store.stats().segments, [10, 11]);
        assert_eq!(ids_in_file(&inner.cold, dir.path()), ["d5"]);
        let check = |store: &Store<u64>| {
            assert_eq!(read(store, "d3"), None);
            assert_eq!(read(store, "d5"), Some((7, None)));
            assert_eq!(read(store, "d4"), Some((4 << 12, None)));
            assert_eq!(store.get("d4").unwrap().unwrap().seq, seqs[4]);
        };
        check(&store);
        check(&Store::<u64>::open_read_only(dir.path()).unwrap());
        // Deleted again: the gone row hides the former record, and the
        // next flush drops both.
        write(&store, vec![Write::Delete("d5".into())]);
        assert_eq!(read(&store, "d5"), None);
        let more = (20..30).map(|i| insert(&format!("d{i}"), i << 12, None));
        write(&store, more.collect());
        store.wait_for_flush();
        assert_eq!(ids_in_file(&inner.cold, dir.path()), Vec::<String>::new());
        assert_eq!(read(&store, "d5"), None);
        drop(store);
        let store = open(dir.path(), 10, usize::MAX);
        assert_eq!(read(&store, "d5"), None);
        assert_eq!(read(&store, "d21"), Some((21 << 12, None)));
        let written = write(&store, vec![insert("d21", 1, None), insert("d5", 1, None)]);
        assert!(
            matches!(&written[0], Written::IdTaken { .. }),
            "{written:?}"
        );
        assert!(
            matches!(&written[1], Written::Inserted { .. }),
            "{written:?}"
        );
    }

    #[test]
    fn merges_carry_each_documents_sequence_number_and_where_its_record_is() {
        let dir = tempfile::tempdir().unwrap();
        let store = open(dir.path(), 4, 2);
        let mut seqs = Vec::new();
        for i in 0..16u64 {
            let metadata = (i % 3 == 0).then(|| format!("{{\"i\":{i}}}"));
            write(
                &store,
                vec![insert(&format!("d{i}"), i << 12, metadata.as_deref())],
            );
            seqs.push(store.get(&format!("d{i}")).unwrap().unwrap().seq);
            store.wait_for_flush();
        }
        store.compact().unwrap();
        assert_eq!(store.stats().segments, [16]);
        for i in 0..16u64 {
            let doc = store.get(&format!("d{i}")).unwrap().unwrap();
            let metadata = (i % 3 == 0).then(|| format!("{{\"i\":{i}}}"));
            assert_eq!(
                (doc.seq, doc.fingerprint, doc.metadata),
                (seqs[i as usize], u128::from(i << 12), metadata)
            );
        }
    }

    /// The rows of the log's `documents` and `bare` tables, as of a
    /// checkpoint made now.
    fn log_rows(store: &Store<u64>) -> (u64, u64) {
        let inner = &store.inner;
        inner
            .checkpoint_with(&mut inner.lock_writer(), |_| Ok(()))
            .unwrap();
        let txn = inner.db.begin_read(&inner.dir).unwrap();
        let documents = txn.open_table(DOCUMENTS).unwrap().len().unwrap();
        (documents, txn.open_table(BARE).unwrap().len().unwrap())
    }

    #[test]
    fn recent_bare_records_are_kept_by_sequence_number_and_found_by_id() {
        let dir = tempfile::tempdir().unwrap();
        let store = open(dir.path(), 10, usize::MAX);
        let mut writes: Vec<Write<u64>> = (0..5)
            .map(|i| insert(&format!("d{i}"), i << 12, None))
            .collect();
        writes.push(insert("e0", 7 << 12, Some("{}")));
        // Inserted and deleted in one batch: found before the view has it.
        writes.push(insert("x", 9 << 12, None));
        writes.push(Write::Delete("x".into()));
        let written = store.write(writes, None).unwrap();
        assert!(
            matches!(&written[7], Written::Deleted { .. }),
            "{written:?}"
        );
        assert_eq!(log_rows(&store), (1, 5));
        let fingerprint =
            |store: &Store<u64>, id: &str| store.get(id).unwrap().map(|d| d.fingerprint);
        assert_eq!(fingerprint(&store, "d2"), Some(2 << 12));
        assert_eq!(
            store.get("e0").unwrap().unwrap().metadata.as_deref(),
            Some("{}")
        );
        assert_eq!(fingerprint(&store, "x"), None);
        let reader = Store::<u64>::open_read_only(dir.path()).unwrap();
        assert_eq!(fingerprint(&reader, "d2"), Some(2 << 12));
        drop(reader);
        store.write(vec![Write::Delete("d2".into())], None).unwrap();
        assert_eq!(fingerprint(&store, "d2"), None);
        assert_eq!(log_rows(&store), (1, 4));
        let written = store.write(vec![insert("d3", 1, None)], None).unwrap();
        assert!(
            matches!(&written[0], Written::IdTaken { .. }),
            "{written:?}"
        );
        drop(store);
        // Read back at the open from the log's rows.
        let store = open(dir.path(), 10, usize::MAX);
        assert_eq!(
            (fingerprint(&store, "d2"), fingerprint(&store, "d3")),
            (None, Some(3 << 12))
        );
        let written = store
            .write(vec![insert("d2", 5, None), insert("d3", 1, None)], None)
            .unwrap();
        assert!(
            matches!(&written[0], Written::Inserted { .. }),
            "{written:?}"
        );
        assert!(
            matches!(&written[1], Written::IdTaken { .. }),
            "{written:?}"
        );
        // Flushed: the bare rows go with the recent rows, and the segment
        // answers.
        let more = (10..15).map(|i| insert(&format!("d{i}"), i << 12, None));
        store.write(more.collect(), None).unwrap();
        store.wait_for_flush();
        assert_eq!((store.stats().recent, store.stats().segments.len()), (0, 1));
        assert_eq!(log_rows(&store), (0, 0));
        assert_eq!(fingerprint(&store, "d2"), Some(5));
        assert_eq!(fingerprint(&store, "d3"), Some(3 << 12));
        assert_eq!(
            store.get("e0").unwrap().unwrap().metadata.as_deref(),
            Some("{}")
        );
    }

    #[test]
    fn a_reader_reads_the_snapshot_its_view_was_read_from() {
        let dir = tempfile::tempdir().unwrap();
        let store = open(dir.path(), 4, usize::MAX);
        store.write(vec![insert("d0", 0, None)], None).unwrap();
        drop(store);
        let store = open(dir.path(), 4, usize::MAX);
        let reader = Store::<u64>::open_read_only(dir.path()).unwrap();
        // Flushed beside it: the log drops d0's bare row, which the
        // reader's view (d0 recent) would look for.
        let more = (1..4).map(|i| insert(&format!("d{i}"), i << 12, None));
        store.write(more.collect(), None).unwrap();
        store.wait_for_flush();
        log_rows(&store);
        let fingerprint =
            |store: &Store<u64>, id: &str| store.get(id).unwrap().map(|d| d.fingerprint);
        assert_eq!(fingerprint(&reader, "d0"), Some(0));
        // Deleted, and its gone row dropped by the next flush: the reader
        // answers as of its snapshot, as its queries do.
        store.write(vec![Write::Delete("d0".into())], None).unwrap();
        let more = (4..8).map(|i| insert(&format!("d{i}"), i << 12, None));
        store.write(more.collect(), None).unwrap();
        store.wait_for_flush();
        log_rows(&store);
        assert_eq!(fingerprint(&reader, "d0"), Some(0));
        assert_eq!(reader.query(0, 0).unwrap()[0].id, "d0");
        assert_eq!(fingerprint(&reader, "d5"), None);
        let again = Store::<u64>::open_read_only(dir.path()).unwrap();
        assert_eq!(
            (fingerprint(&again, "d0"), fingerprint(&again, "d5")),
            (None, Some(5 << 12))
        );
    }

    /// A batch that deletes an id and inserts it again, committed as a
    /// checkpoint (as a labelled batch is), never leaves a lookup beside it
    /// without the id: lookups wait from the commit until the view has the
    /// batch.
    #[test]
    fn an_id_written_again_is_found_at_every_moment_by_lookups_beside_the_writer() {
        let dir = tempfile::tempdir().unwrap();
        let store = open(dir.path(), 1 << 20, usize::MAX);
        store.write(vec![insert("x", 0, None)], None).unwrap();
        let done = std::sync::atomic::AtomicBool::new(false);
        let missed = std::thread::scope(|scope| {
            let looking = scope.spawn(|| {
                let mut missed = 0;
                while !done.load(std::sync::atomic::Ordering::Relaxed) {
                    if store.get("x").unwrap().is_none() {
                        missed += 1;
                    }
                }
                missed
            });
            let also = |_: &redb::WriteTransaction| Ok(());
            for i in 1..300u64 {
                let writes = vec![Write::Delete("x".into()), insert("x", i << 8, None)];
                let written = store.write_with(writes, None, Some(&also)).unwrap();
                assert!(
                    matches!(&written[1], Written::Inserted { .. }),
                    "{written:?}"
                );
            }
            done.store(true, std::sync::atomic::Ordering::Relaxed);
            looking.join().unwrap()
        });
        assert_eq!(missed, 0);
        assert_eq!(store.get("x").unwrap().unwrap().fingerprint, 299 << 8);
    }
}
