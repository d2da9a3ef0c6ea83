//! Writes: a batch of inserts and deletes made in the writer's transaction
//! of the log, acknowledged once its changes are in the write-ahead log
//! (`checkpoint.rs`), then applied to what queries see (and,
//! every `flush_at` documents, flushed: [`crate::flush`]). Stored texts
//! are judged against new ones in [`crate::judge`].

use std::collections::{HashMap, HashSet};

use neardup_index::{Bits, OnlineIndex};
use redb::ReadableTable;

use crate::change::{self, Change, Deleted, LogTables, decode_keys};
use crate::checkpoint::Unchecked;
use crate::cold::ColdRead;
use crate::error::{Damage, Error, Result};
use crate::judge::{Judge, TextCheck};
use crate::log::Logged;
use crate::options::plan_for;
use crate::presearch::Presearch;
use crate::record::StoredDocument;
use crate::records::{LogRecords, find};
use crate::store::{Store, decode};
use crate::view::{Place, View};
use neardup_index::Neighbour;

/// A document to insert.
///
/// ```
/// use neardup_store::Insert;
///
/// let insert = Insert::new(0xabcu64, 3).id("page-1").text("a page").only_if_unique();
/// assert_eq!(insert.id.as_deref(), Some("page-1"));
/// assert!(insert.only_if_unique);
/// ```
#[derive(Clone, Debug)]
pub struct Insert<B> {
    /// Its id; the store makes one when `None`.
    pub id: Option<String>,
    /// Its fingerprint.
    pub fingerprint: B,
    /// Its text, kept when the store keeps texts.
    pub text: Option<String>,
    /// Its metadata, a JSON value as text.
    pub metadata: Option<String>,
    /// Stored documents at most this many bits away are its duplicates.
    pub k: u32,
    /// Stored only when it has no duplicate.
    pub only_if_unique: bool,
    /// Its short-document keys: stored documents that share one are its
    /// candidates too, whatever their distance, judged by their texts
    /// (only with a judge and texts). Kept with it when the store keeps
    /// keys ([`crate::StoreSettings::short_keys`]).
    pub keys: Vec<u64>,
    /// Its candidates in the segments, searched before the write
    /// ([`Insert::presearched`]); `None`: the writer searches them.
    pub presearch: Option<Presearch>,
}

impl<B> Insert<B> {
    /// An insert of `fingerprint`, with duplicates within `k` bits.
    pub fn new(fingerprint: B, k: u32) -> Insert<B> {
        Insert {
            id: None,
            fingerprint,
            text: None,
            metadata: None,
            k,
            only_if_unique: false,
            keys: Vec::new(),
            presearch: None,
        }
    }

    /// The same, with short-document keys `keys`.
    ///
    /// ```
    /// use neardup_store::Insert;
    ///
    /// assert_eq!(Insert::new(0u64, 3).keys(vec![7, 9]).keys, [7, 9]);
    /// ```
    pub fn keys(self, keys: Vec<u64>) -> Insert<B> {
        Insert { keys, ..self }
    }

    /// The same, with id `id`.
    pub fn id(self, id: impl Into<String>) -> Insert<B> {
        Insert {
            id: Some(id.into()),
            ..self
        }
    }

    /// The same, with text `text`.
    pub fn text(self, text: impl Into<String>) -> Insert<B> {
        Insert {
            text: Some(text.into()),
            ..self
        }
    }

    /// The same, stored only when it has no duplicate.
    pub fn only_if_unique(self) -> Insert<B> {
        Insert {
            only_if_unique: true,
            ..self
        }
    }

    /// The same, with its segments searched already
    /// ([`crate::Store::presearch`], of this fingerprint and `k`: another
    /// is ignored, and the writer searches).
    pub fn presearched(self, presearch: Presearch) -> Insert<B> {
        Insert {
            presearch: Some(presearch),
            ..self
        }
    }
}

/// One write of a batch.
///
/// ```
/// use neardup_store::{Insert, Write};
///
/// let batch: Vec<Write<u64>> = vec![Write::Insert(Insert::new(0xab, 3).id("a")), Write::Delete("b".into())];
/// assert_eq!(batch.len(), 2);
/// ```
#[derive(Clone, Debug)]
pub enum Write<B> {
    /// Store a document.
    Insert(Insert<B>),
    /// Delete the document of this id.
    Delete(String),
}

/// A stored document found to duplicate an inserted one: a
/// [`Neighbour`] of it (within k bits) that the store's [`Judge`] passed
/// too, with the texts' similarity when both texts were there.
///
/// ```
/// use neardup_store::Duplicate;
///
/// let d = Duplicate { id: "a".into(), distance: 1, similarity: Some(0.9) };
/// assert!(d.similarity.is_some_and(|s| s >= 0.8));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Duplicate {
    /// Its id.
    pub id: String,
    /// How many bits its fingerprint differs by.
    pub distance: u32,
    /// The texts' similarity, when both texts were there to compare.
    pub similarity: Option<f64>,
}

/// What a write did.
///
/// ```
/// use neardup_store::Written;
///
/// let taken = Written::IdTaken { id: "a".into() };
/// assert!(!matches!(taken, Written::Inserted { .. }));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum Written {
    /// Stored, under this id; with the duplicates it has.
    Inserted {
        /// The id.
        id: String,
        /// Its duplicates among the documents stored before it.
        duplicates: Vec<Duplicate>,
    },
    /// Not stored: asked to be stored only if unique, and it has these
    /// duplicates.
    NotUnique {
        /// The id it was given, if any.
        id: Option<String>,
        /// Its duplicates.
        duplicates: Vec<Duplicate>,
    },
    /// Not stored: a document of this id is stored already.
    IdTaken {
        /// The id.
        id: String,
    },
    /// Deleted.
    Deleted {
        /// The id.
        id: String,
    },
    /// Nothing to delete: no document has this id.
    Missing {
        /// The id.
        id: String,
    },
}

/// What a write of a labelled batch also records, in its transaction.
pub(crate) type AlsoInTransaction<'a> = dyn Fn(&redb::WriteTransaction) -> Result<()> + 'a;

/// A document inserted by the batch being written.
struct Staged<B> {
    id: String,
    fingerprint: B,
    text: Option<String>,
    seq: u64,
    deleted: bool,
}

impl<B: Bits> Store<B> {
    /// Writes `writes` in order, in one transaction: returned (acknowledged)
    /// once it is on disk, and from then on seen by queries. Each insert
    /// learns its duplicates among the documents stored before it, this
    /// batch's earlier ones included: when `judge` is given and both texts
    /// are kept, a candidate within `k` bits counts only if the judge says
    /// so.
    ///
    /// # Errors
    ///
    /// [`Error::KBeyondStore`] when an insert's `k` is past the store's (nothing
    /// is written); [`Error::Log`] when the transaction cannot be
    /// committed (nothing is written, nothing acknowledged).
    ///
    /// An insert with many stored texts to judge judges them on rayon's
    /// global pool while it holds the writer's lock: call `write` from
    /// outside that pool (a rayon task waiting for the lock could be the
    /// one the judging needs).
    pub fn write(&self, writes: Vec<Write<B>>, judge: Option<&dyn Judge>) -> Result<Vec<Written>> {
        self.write_with(writes, judge, None)
    }

    /// [`Store::write`], with `also` run in the same transaction once the
    /// writes are in it (a batch's record, say): it commits with them, as
    /// a checkpoint of the log, or not at all.
    pub(crate) fn write_with(
        &self,
        writes: Vec<Write<B>>,
        judge: Option<&dyn Judge>,
        also: Option<&AlsoInTransaction<'_>>,
    ) -> Result<Vec<Written>> {
        for write in &writes {
            if let Write::Insert(insert) = write {
                self.check_k(insert.k)?;
            }
        }
        let inner = &self.inner;
        let dir = inner.dir.as_path();
        let mut counters = inner.lock_writer();
        let txn = counters.pending(dir)?.take(&inner.db, dir)?;
        // Taken after the log's: see `cold.rs`.
        let cold = inner.cold.snapshot_since(dir, counters.cold.take())?;
        let mut staged: Vec<Staged<B>> = Vec::new();
        // The batch's inserts by id (those not deleted since) and by
        // short-document key: a batch of n writes looks each up once,
        // not n times over.
        let mut staged_ids: HashMap<String, usize> = HashMap::new();
        let mut staged_keys: HashMap<u64, Vec<usize>> = HashMap::new();
        // Planned for the batch's size (a batch taken in one transaction,
        // `insert_batch`, may be larger than a flush).
        let mut staged_index = match writes.len() > 64 {
            true => {
                let plan = plan_for(&inner.settings, &inner.options, writes.len())?;
                let mut index = OnlineIndex::<B>::new(plan)?;
                index.reserve(writes.len());
                Some(index)
            }
            false => None,
        };
        let mut deletes: HashSet<Place> = HashSet::new();
        let mut changes: Vec<Change> = Vec::new();
        let mut written = Vec::with_capacity(writes.len());
        {
            let mut tables = LogTables::open(&txn, dir)?;
            let keeps_keys = inner.settings.short_keys.is_some();
            let view = inner.read_view();
            for write in writes {
                match write {
                    Write::Insert(insert) => {
                        let stored = Stored {
                            documents: &tables.documents,
                            gone: &tables.gone,
                            bare: &tables.bare,
                            cold: &cold,
                            view: &view,
                            dir,
                        };
                        let id = match &insert.id {
                            Some(id) if stored.taken(&staged_ids, id)? => {
                                written.push(Written::IdTaken { id: id.clone() });
                                continue;
                            }
                            Some(id) => id.clone(),
                            None => stored.fresh_id(&staged_ids, counters.next_seq)?,
                        };
                        let mut check = TextCheck::new(judge, insert.text.as_deref());
                        let mut duplicates = Vec::new();
                        let mut candidates = Vec::new();
                        let mut held = 0;
                        let mut found = HashSet::new();
                        let hits = match insert.presearch {
                            Some(p)
                                if p.fingerprint == insert.fingerprint.to_u128()
                                    && p.k == insert.k =>
                            {
                                view.search_since(
                                    insert.fingerprint,
                                    insert.k,
                                    p.generation,
                                    p.hits,
                                )
                            }
                            _ => view.search(insert.fingerprint, insert.k),
                        };
                        for (hit, place) in hits {
                            if deletes.contains(&place) {
                                continue;
                            }
                            if !insert.keys.is_empty() {
                                found.insert(hit.id.clone());
                            }
                            let stored = match check.wants_texts() {
                                true => stored
                                    .get(&hit.id)?
                                    .map(|b| decode(dir, &hit.id, &b))
                                    .transpose()?
                                    .and_then(|d| d.text),
                                false => None,
                            };
                            held += stored.as_ref().map_or(0, String::len);
                            candidates.push((hit, stored));
                            if held >= JUDGED_TEXT_BYTES {
                                let round = std::mem::take(&mut candidates);
                                duplicates.extend(check.stored_duplicates(round));
                                held = 0;
                            }
                        }
                        // Stored documents that share a short-document key,
                        // at any distance (judged by their texts alone).
                        if check.wants_texts() {
                            for other in keyed_ids(&tables.keyed, &insert.keys, dir, None)? {
                                // This batch's own inserts are in the log's
                                // table already; they are judged below, once.
                                if found.contains(&other) || staged_ids.contains_key(&other) {
                                    continue;
                                }
                                // Not there: deleted earlier in this batch.
                                let Some(bytes) = stored.get(&other)? else {
                                    continue;
                                };
                                let doc = decode(dir, &other, &bytes)?;
                                let distance =
                                    B::from_u128(doc.fingerprint).distance(insert.fingerprint);
                                held += doc.text.as_ref().map_or(0, String::len);
                                let hit = Neighbour {
                                    id: other,
                                    distance,
                                };
                                candidates.push((hit, doc.text));
                                if held >= JUDGED_TEXT_BYTES {
                                    let round = std::mem::take(&mut candidates);
                                    duplicates.extend(check.stored_duplicates(round));
                                    held = 0;
                                }
                            }
                        }
                        duplicates.extend(check.stored_duplicates(candidates));
                        // This batch's earlier inserts: by an index of their
                        // own when the batch is large, else one by one.
                        let near: Vec<(usize, u32)> = match &staged_index {
                            Some(index) => index
                                .query(insert.fingerprint)
                                .into_iter()
                                .map(|m| (m.id as usize, m.distance))
                                .collect(),
                            None => (0..staged.len())
                                .map(|i| (i, staged[i].fingerprint.distance(insert.fingerprint)))
                                .collect(),
                        };
                        let mut near_staged = Vec::new();
                        for (i, distance) in near {
                            let s = &staged[i];
                            if distance <= insert.k && !s.deleted {
                                near_staged.push(i);
                                let d = check.duplicate(s.text.as_deref(), s.id.clone(), distance);
                                duplicates.extend(d);
                            }
                        }
                        // And those that share a short-document key (a batch
                        // of copies has every earlier insert near: looked up
                        // in order, not scanned for each).
                        near_staged.sort_unstable();
                        if check.wants_texts() && !insert.keys.is_empty() {
                            let mut sharing: Vec<usize> = insert
                                .keys
                                .iter()
                                .filter_map(|key| staged_keys.get(key))
                                .flatten()
                                .copied()
                                .collect();
                            sharing.sort_unstable();
                            sharing.dedup();
                            for i in sharing {
                                let s = &staged[i];
                                let near = near_staged.binary_search(&i).is_ok();
                                if near || s.deleted || s.text.is_none() {
                                    continue;
                                }
                                let distance = s.fingerprint.distance(insert.fingerprint);
                                let d = check.duplicate(s.text.as_deref(), s.id.clone(), distance);
                                duplicates.extend(d);
                            }
                        }
                        drop(check);
                        duplicates.sort_by(|a, b| (a.distance, &a.id).cmp(&(b.distance, &b.id)));
                        if insert.only_if_unique && !duplicates.is_empty() {
                            written.push(Written::NotUnique {
                                id: insert.id,
                                duplicates,
                            });
                            continue;
                        }
                        let seq = counters.next_seq;
                        counters.next_seq += 1;
                        let text = if inner.settings.texts {
                            insert.text
                        } else {
                            None
                        };
                        let doc = StoredDocument {
                            seq,
                            fingerprint: insert.fingerprint.to_u128(),
                            text,
                            metadata: insert.metadata,
                        };
                        let keys = match keeps_keys {
                            true => insert.keys,
                            false => Vec::new(),
                        };
                        if let Some(index) = &mut staged_index {
                            index.insert(insert.fingerprint)?;
                        }
                        for &key in &keys {
                            staged_keys.entry(key).or_default().push(staged.len());
                        }
                        let change = Change::Insert {
                            id: id.clone(),
                            seq,
                            record: doc.encode(),
                            keys,
                        };
                        tables.apply(&change, dir)?;
                        changes.push(change);
                        staged_ids.insert(id.clone(), staged.len());
                        staged.push(Staged {
                            id: id.clone(),
                            fingerprint: insert.fingerprint,
                            text: doc.text,
                            seq,
                            deleted: false,
                        });
                        written.push(Written::Inserted { id, duplicates });
                    }
                    Write::Delete(id) => {
                        let stored = Stored {
                            documents: &tables.documents,
                            gone: &tables.gone,
                            bare: &tables.bare,
                            cold: &cold,
                            view: &view,
                            dir,
                        };
                        // One this batch inserted is in the view only once
                        // the batch is done (its bare record is not found by
                        // id before): it is found among the staged ones.
                        let from = if let Some(pos) = staged_ids.remove(id.as_str()) {
                            let s = &mut staged[pos];
                            s.deleted = true;
                            if let Some(index) = &mut staged_index {
                                index.remove(pos as u32);
                            }
                            Deleted::Recent { seq: s.seq }
                        } else {
                            let Some(bytes) = stored.get(&id)? else {
                                written.push(Written::Missing { id });
                                continue;
                            };
                            let doc = decode(dir, &id, &bytes)?;
                            let place = view
                                .search(B::from_u128(doc.fingerprint), 0)
                                .into_iter()
                                .find(|(hit, place)| hit.id == id && !deletes.contains(place))
                                .map(|(_, place)| place)
                                .ok_or_else(|| {
                                    Error::Format(
                                        dir.join(crate::log::LOG_FILE),
                                        Damage::NotIndexed { id: id.clone() },
                                    )
                                })?;
                            deletes.insert(place);
                            match place {
                                // A frozen document's row stays on the recent
                                // list until its segment is swapped in.
                                Place::Recent { .. } | Place::Frozen { .. } => {
                                    Deleted::Recent { seq: doc.seq }
                                }
                                Place::Segment { segment, pos } => Deleted::Segment {
                                    segment,
                                    entry: pos,
                                },
                            }
                        };
                        let keys = match tables.keys_of.get(id.as_str()).logged(dir)? {
                            Some(keys) => decode_keys(keys.value()),
                            None => Vec::new(),
                        };
                        let change = Change::Delete {
                            id: id.clone(),
                            keys,
                            from,
                        };
                        tables.apply(&change, dir)?;
                        changes.push(change);
                        written.push(Written::Deleted { id });
                    }
                }
            }
        }
        counters.cold = Some(cold);
        // The view takes the batch before a checkpoint forgets its changes
        // in `unchecked`: a lookup reads the log, then the view.
        let show = || -> Result<()> {
            let mut view = inner.write_view();
            for place in deletes {
                view.delete(place);
            }
            for s in staged.into_iter().filter(|s| !s.deleted) {
                view.recent.insert(s.fingerprint)?;
                view.push_recent(s.id, s.seq);
            }
            Ok(())
        };
        match also {
            // A batch's record is in no write-ahead record: it commits
            // with its writes, as a checkpoint, before the view takes them.
            Some(also) => {
                counters.pending(dir)?.keep(txn);
                inner.checkpoint_then(&mut counters, |txn| also(txn), show)?;
            }
            None if changes.is_empty() => counters.pending(dir)?.keep(txn),
            None => {
                let pending = counters.pending(dir)?;
                pending.append(txn, change::encode(&changes))?;
                inner.unchecked().note(&changes);
                show()?;
                // Acknowledged already: a checkpoint that fails is tried
                // again later, the writes safe in the write-ahead log
                // meanwhile (its error shown in the stats till then).
                if counters.pending(dir)?.due() {
                    let _ = inner.checkpoint_with(&mut counters, |_| Ok(()));
                }
            }
        }
        let due = self.flush_due(&mut counters)?;
        drop(counters);
        self.flush_as_due(due)?;
        self.maybe_merge();
        Ok(written)
    }
}

/// The ids of the documents in `keyed` under any of `keys`, each once;
/// as of the writes since when `keyed` is a checkpoint's and `unchecked`
/// holds them.
pub(crate) fn keyed_ids(
    keyed: &impl ReadableTable<(u64, &'static str), ()>,
    keys: &[u64],
    dir: &std::path::Path,
    unchecked: Option<&Unchecked>,
) -> Result<Vec<String>> {
    let mut ids = Vec::new();
    for &key in keys {
        let mut under = Vec::new();
        for row in keyed.range((key, "")..).logged(dir)? {
            let (row, _) = row.logged(dir)?;
            let (k, id) = row.value();
            if k != key {
                break;
            }
            under.push(id.to_string());
        }
        if let Some(unchecked) = unchecked {
            unchecked.keyed(key, &mut under);
        }
        ids.append(&mut under);
    }
    ids.sort_unstable();
    ids.dedup();
    Ok(ids)
}

/// The bytes of stored texts read for one insert's candidates before they
/// are judged: a text near thousands of stored ones is judged in rounds,
/// so that the writer never holds all their texts at once.
const JUDGED_TEXT_BYTES: usize = 64 << 20;

/// The stored records as a batch sees them: the log's, as the batch left
/// them so far, then the segments' and the documents file's
/// (`records.rs`).
struct Stored<'a, 't, B> {
    documents: &'a redb::Table<'t, &'static str, &'static [u8]>,
    gone: &'a redb::Table<'t, &'static str, ()>,
    bare: &'a redb::Table<'t, u64, &'static [u8]>,
    cold: &'a ColdRead,
    view: &'a View<B>,
    dir: &'a std::path::Path,
}

impl<B: Bits> Stored<'_, '_, B> {
    /// The record of `id`, if stored. A new id, the crawler's usual case,
    /// is ruled out by the segments' filters of names with no read of the
    /// documents file: reading it, at a random place in gigabytes, took
    /// most of a group commit's time at 10⁸ documents.
    fn get(&self, id: &str) -> Result<Option<Vec<u8>>> {
        let log = LogRecords {
            documents: Some(self.documents),
            gone: Some(self.gone),
            bare: Some(self.bare),
        };
        find(log, self.cold, self.view, id, self.dir)
    }

    /// Whether a stored document or one this batch inserted (and did not
    /// delete since) has id `id`.
    fn taken(&self, staged_ids: &HashMap<String, usize>, id: &str) -> Result<bool> {
        Ok(staged_ids.contains_key(id) || self.get(id)?.is_some())
    }

    /// An id for a document given none: its sequence number, with a
    /// suffix in the rare case that a caller took that id.
    fn fresh_id(&self, staged_ids: &HashMap<String, usize>, seq: u64) -> Result<String> {
        let mut id = seq.to_string();
        let mut n = 0;
        while self.taken(staged_ids, &id)? {
            n += 1;
            id = format!("{seq}.{n}");
        }
        Ok(id)
    }
}

/// Syncs directory `dir`, so that a file renamed into it survives a power
/// cut (a process crash needs no such step).
pub(crate) fn sync_dir(dir: &std::path::Path) -> Result<()> {
    #[cfg(unix)]
    std::fs::File::open(dir)
        .and_then(|f| f.sync_all())
        .map_err(|e| Error::Io(dir.to_path_buf(), e))?;
    Ok(())
}
