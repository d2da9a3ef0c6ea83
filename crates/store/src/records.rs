//! Where a stored document's record is, and the one order every read
//! (the writer's, [`crate::Store::get`], a reader's) follows to find it.
//!
//! The record of `id` is the first of:
//!
//! 1. the log's `documents` table: the documents not in a segment yet, and
//!    those a flush wrote to one whose records the log has not dropped yet
//!    (it drops them after the segment is swapped in, `flush.rs`);
//! 2. none, when the log's `gone` table names the id (deleted, its record
//!    maybe still in the documents file till the next flush);
//! 3. a live (not deleted) entry of the id in a segment of the present
//!    format, found by the segment's table of names: its sequence number
//!    and fingerprint are the record, unless the number's top bit
//!    ([`IN_DOCUMENTS_FILE`]) says the record (with a text or metadata) is
//!    in the documents file;
//! 4. the documents file, by id, when the view cannot rule the id out of
//!    it ([`View::may_be_in_documents_file`]): a segment of a former format
//!    may hold the id (their records are all there), or a recent or frozen
//!    document has it (a flush of a former build moved records there
//!    before its swap).
//!
//! So a flush of documents with neither text nor metadata moves no record
//! to the documents file: with ids keyed at random, its B-tree took one
//! leaf written and synced a record, 7 s a flush of 65,536 at 10⁸
//! documents, and a sustained rate of inserts could not wait for that.
//!
//! A record the documents file keeps after its document was deleted and
//! its id inserted again (the insert drops the gone row) is never read:
//! the new document is in the log (1) or a segment (3) until deleted, and
//! then the gone row (2) hides the id until the flush after drops the
//! stale record with it.

use std::path::Path;

use neardup_index::{Bits, NameHash};
use redb::{ReadOnlyTable, ReadTransaction, ReadableTable};

use crate::StoredDocument;
use crate::cold::{Cold, ColdRead};
use crate::error::Result;
use crate::log::{DOCUMENTS, GONE, Logged};
use crate::view::{View, is_set};

/// The top bit of a segment entry's sequence number: the document's record
/// (it has a text or metadata) is in the documents file, keyed by id.
pub(crate) const IN_DOCUMENTS_FILE: u64 = 1 << 63;

/// The sequence number a merge gives an entry of a segment of a former
/// format, which has none: its record, sequence number included, is in the
/// documents file.
pub(crate) const FORMER_SEQ: u64 = u64::MAX;

/// The record of `id`, in the order of the module's doc: the log's
/// `documents` (`None`: a store never written since layout 1) and `gone`,
/// the view's segments, then the documents file (`cold`).
pub(crate) fn find<B: Bits>(
    documents: Option<&impl ReadableTable<&'static str, &'static [u8]>>,
    gone: Option<&impl ReadableTable<&'static str, ()>>,
    cold: &ColdRead,
    view: &View<B>,
    id: &str,
    dir: &Path,
) -> Result<Option<Vec<u8>>> {
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
    match in_segments(view, id) {
        InSegments::Record(doc) => Ok(Some(doc.encode())),
        InSegments::InDocumentsFile => cold.get(id, dir),
        InSegments::None if view.may_be_in_documents_file(&NameHash::of(id)) => cold.get(id, dir),
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

/// Step 3 of the module's order: the live entry of `id` in a segment of
/// the present format, if any (a store holds one live document an id).
fn in_segments<B: Bits>(view: &View<B>, id: &str) -> InSegments {
    for live in &view.segments {
        let Some(entries) = live.segment.entries_named(id) else {
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
    cold: ColdRead,
}

impl Records {
    /// The records as of `txn`, a snapshot of the log, and of the
    /// documents file's last commit.
    pub(crate) fn read(txn: &ReadTransaction, cold: &Cold, dir: &Path) -> Result<Records> {
        let documents = match txn.open_table(DOCUMENTS) {
            Ok(table) => Some(table),
            Err(redb::TableError::TableDoesNotExist(_)) => None,
            Err(e) => return Err(e).logged(dir),
        };
        let gone = match txn.open_table(GONE) {
            Ok(table) => Some(table),
            Err(redb::TableError::TableDoesNotExist(_)) => None,
            Err(e) => return Err(e).logged(dir),
        };
        let cold = cold.snapshot(dir)?;
        Ok(Records {
            documents,
            gone,
            cold,
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
        find(
            self.documents.as_ref(),
            self.gone.as_ref(),
            &self.cold,
            view,
            id,
            dir,
        )
    }

    /// The record of recent document `id`, as the open reads it before
    /// the view has its segments' say: the log's, or the documents file's
    /// (where a flush of a former build moved it before its swap).
    pub(crate) fn get_recent(&self, id: &str, dir: &Path) -> Result<Option<Vec<u8>>> {
        if let Some(documents) = &self.documents
            && let Some(bytes) = documents.get(id).logged(dir)?
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
    use crate::cold::ids_in_file;
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
}
