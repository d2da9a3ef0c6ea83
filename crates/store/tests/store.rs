//! The store against a model: whatever the order of inserts, deletes,
//! flushes, background merges and reopenings, a query finds exactly the
//! stored documents within `k` bits, as brute force over the model does,
//! and so does an insert's search for its duplicates (searched by the
//! writer, or before, with a presearch of any age); and no sequence number
//! is given twice.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use neardup_index::Neighbour;
use neardup_store::{Against, Insert, Judge, Store, StoreOptions, StoreSettings, Write, Written};
use proptest::prelude::*;

const K: u32 = 4;

fn settings(texts: bool) -> StoreSettings {
    StoreSettings::builder(K).texts(texts).build()
}

fn small() -> StoreOptions {
    StoreOptions::builder().flush_at(6).merge_factor(2).build()
}

fn open(dir: &Path) -> Store<u64> {
    Store::open(dir, Some(&settings(false)), small()).expect("opens")
}

#[derive(Clone, Debug)]
enum Op {
    Insert(u8, u64),
    Delete(u8),
    Query(u64, u32),
    /// A presearch of the fingerprint, given to its next insert.
    Presearch(u64),
    Reopen,
}

/// Fingerprints near a few centres, so that queries find several.
fn fingerprint() -> impl Strategy<Value = u64> {
    (0..4u64, any::<u64>()).prop_map(|(centre, noise)| {
        let base = centre.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        // Up to 6 random bits flipped.
        let flips = (0..6).fold(0u64, |m, i| m | 1 << ((noise >> (i * 8)) % 64));
        base ^ if noise % 3 == 0 { 0 } else { flips }
    })
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        5 => (0..40u8, fingerprint()).prop_map(|(id, fp)| Op::Insert(id, fp)),
        2 => (0..40u8).prop_map(Op::Delete),
        3 => (fingerprint(), 0..=K).prop_map(|(fp, k)| Op::Query(fp, k)),
        2 => fingerprint().prop_map(Op::Presearch),
        1 => Just(Op::Reopen),
    ]
}

fn brute(model: &BTreeMap<String, u64>, query: u64, k: u32) -> Vec<Neighbour<String>> {
    let mut hits: Vec<Neighbour<String>> = model
        .iter()
        .map(|(id, fp)| Neighbour {
            distance: (fp ^ query).count_ones(),
            id: id.clone(),
        })
        .filter(|h| h.distance <= k)
        .collect();
    hits.sort();
    hits
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn queries_match_brute_force_through_flushes_merges_and_reopens(
        ops in prop::collection::vec(prop::collection::vec(op(), 1..6), 1..40)
    ) {
        let dir = tempfile::tempdir().unwrap();
        let mut store = open(dir.path());
        let mut model: BTreeMap<String, u64> = BTreeMap::new();
        let mut presearched = HashMap::new();
        // Sequence numbers only grow, through deletes of the newest
        // document, flushes and reopenings: none is given twice.
        let mut last_seq = None;
        for batch in ops {
            // Writes gather into one batch until a query or a reopening,
            // which first writes them.
            let mut writes = Vec::new();
            // Each write's refusal, and an insert's duplicates.
            let mut expected: Vec<(bool, Vec<Neighbour<String>>)> = Vec::new();
            for op in batch.into_iter().map(Some).chain([None]) {
                if !matches!(op, Some(Op::Insert(..) | Op::Delete(_))) && !writes.is_empty() {
                    let written = store.write(std::mem::take(&mut writes), None).unwrap();
                    for (i, (w, (refused, near))) in written.iter().zip(expected.drain(..)).enumerate() {
                        let was_refused = matches!(w, Written::IdTaken { .. } | Written::Missing { .. });
                        prop_assert_eq!(was_refused, refused, "{:?}", w);
                        // The store holds the last insert of an id in the
                        // batch (one before it was deleted in the batch).
                        let inserted_later = |id: &str| written[i + 1..]
                            .iter()
                            .any(|w| matches!(w, Written::Inserted { id: later, .. } if later == id));
                        if let Written::Inserted { id, .. } = w
                            && !inserted_later(id)
                            && let Some(doc) = store.get(id).unwrap()
                        {
                            prop_assert!(last_seq < Some(doc.seq), "{} given {} after {:?}", id, doc.seq, last_seq);
                            last_seq = Some(doc.seq);
                        }
                        if let Written::Inserted { duplicates, .. } = w {
                            let mut found: Vec<Neighbour<String>> = duplicates
                                .iter()
                                .map(|d| Neighbour { distance: d.distance, id: d.id.clone() })
                                .collect();
                            found.sort();
                            prop_assert_eq!(found, near);
                        }
                    }
                    prop_assert_eq!(store.stats().documents, model.len());
                }
                match op {
                    Some(Op::Insert(id, fp)) => {
                        let id = id.to_string();
                        let taken = model.contains_key(&id);
                        expected.push((taken, brute(&model, fp, K)));
                        if !taken {
                            model.insert(id.clone(), fp);
                        }
                        let mut insert = Insert::new(fp, K).id(id);
                        if let Some(p) = presearched.remove(&fp) {
                            insert = insert.presearched(p);
                        }
                        writes.push(Write::Insert(insert));
                    }
                    Some(Op::Delete(id)) => {
                        let id = id.to_string();
                        expected.push((model.remove(&id).is_none(), Vec::new()));
                        writes.push(Write::Delete(id));
                    }
                    Some(Op::Query(fp, k)) => {
                        prop_assert_eq!(store.query(fp, k).unwrap(), brute(&model, fp, k));
                    }
                    Some(Op::Presearch(fp)) => {
                        presearched.insert(fp, store.presearch(fp, K).unwrap());
                    }
                    Some(Op::Reopen) => {
                        drop(store);
                        store = reopen(dir.path());
                        check_records(&store, &model)?;
                    }
                    None => {}
                }
            }
        }
        for fp in model.values() {
            prop_assert_eq!(store.query(*fp, K).unwrap(), brute(&model, *fp, K));
        }
        check_records(&store, &model)?;
        drop(store);
        let store = reopen(dir.path());
        check_records(&store, &model)?;
        prop_assert_eq!(store.stats().documents, model.len());
        for (id, fp) in &model {
            prop_assert_eq!(store.get(id).unwrap().map(|d| d.fingerprint), Some(u128::from(*fp)));
            prop_assert_eq!(store.query(*fp, K).unwrap(), brute(&model, *fp, K));
        }
    }
}

/// Every id the operations use has its model's record, or none: a deleted
/// document's record stays hidden wherever it was (the log, or the
/// documents file a flush moved it to).
fn check_records(store: &Store<u64>, model: &BTreeMap<String, u64>) -> Result<(), TestCaseError> {
    for id in (0..40u8).map(|i| i.to_string()) {
        let found = store.get(&id).unwrap().map(|d| d.fingerprint);
        prop_assert_eq!(found, model.get(&id).map(|&fp| u128::from(fp)), "{}", id);
    }
    Ok(())
}

/// Opens the store again: a merge of the last handle may still be running
/// in its thread, holding the lock for a moment.
fn reopen(dir: &Path) -> Store<u64> {
    for _ in 0..500 {
        match Store::open(dir, Some(&settings(false)), small()) {
            Ok(store) => return store,
            Err(e) if e.to_string().contains("another neardup") => {
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            Err(e) => panic!("{e}"),
        }
    }
    panic!("the store stayed locked");
}

#[test]
fn a_presearch_holds_through_deletions_flushes_and_merges() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let near = |prefix: &str, shift: u32| -> Vec<Write<u64>> {
        (0..6)
            .map(|i| Write::Insert(Insert::new(1u64 << (i + shift), K).id(format!("{prefix}{i}"))))
            .collect()
    };
    // Six within one bit of 0, flushed into a segment (flush_at 6).
    store.write(near("a", 0), None).unwrap();
    store.wait_for_flush();
    assert_eq!(store.stats().segments.len(), 1);
    // What an insert of 0 reports, given `presearch`, against a query of
    // the store just before it.
    let insert = |id: &str, presearch| {
        let truth = store.query(0, K).unwrap();
        let insert = Insert::new(0u64, K).id(id).presearched(presearch);
        let written = store.write(vec![Write::Insert(insert)], None).unwrap();
        let Written::Inserted { duplicates, .. } = &written[0] else {
            panic!("{written:?}")
        };
        let found: Vec<_> = duplicates.iter().map(|d| d.id.clone()).collect();
        (found, truth.into_iter().map(|n| n.id).collect::<Vec<_>>())
    };
    // A deletion in the segment after the presearch: not reported.
    let early = store.presearch(0, K).unwrap();
    store.write(vec![Write::Delete("a0".into())], None).unwrap();
    let (found, truth) = insert("n1", early);
    assert_eq!(found, truth);
    assert!(
        !found.contains(&"a0".to_string()) && found.len() == 5,
        "{found:?}"
    );
    // Six more near it after it, flushed (and the segments merged): found
    // anyway, as is the recent n1.
    let early = store.presearch(0, K).unwrap();
    store.write(near("b", 10), None).unwrap();
    store.wait_for_flush();
    let (found, truth) = insert("n2", early);
    assert_eq!(found, truth);
    assert!(
        found.contains(&"b5".to_string()) && found.len() == 1 + 5 + 6,
        "{found:?}"
    );
    // Of another fingerprint: ignored, the writer searches.
    let other = store.presearch(u64::MAX, K).unwrap();
    let (found, truth) = insert("n3", other);
    assert_eq!((found.len(), found), (truth.len(), truth));
}

#[test]
fn insert_if_unique_sees_the_batch_and_the_judge() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::<u64>::open(dir.path(), Some(&settings(true)), small()).unwrap();
    let same = |a: &str, b: &str| (a == b).then_some(1.0);
    let writes = vec![
        Write::Insert(
            Insert::new(0xf0, K)
                .id("a")
                .text("one text")
                .only_if_unique(),
        ),
        // Within k of "a" and the same text: a duplicate, not stored.
        Write::Insert(
            Insert::new(0xf1, K)
                .id("b")
                .text("one text")
                .only_if_unique(),
        ),
        // Within k of "a" but another text: the judge says no; stored.
        Write::Insert(
            Insert::new(0xf3, K)
                .id("c")
                .text("another")
                .only_if_unique(),
        ),
        // No id: the store makes one.
        Write::Insert(Insert::new(0xffff_0000_0000_0000, K)),
    ];
    let written = store.write(writes, Some(&same)).unwrap();
    assert!(matches!(&written[0], Written::Inserted { duplicates, .. } if duplicates.is_empty()));
    match &written[1] {
        Written::NotUnique { id, duplicates } => {
            assert_eq!(id.as_deref(), Some("b"));
            assert_eq!(
                (duplicates[0].id.as_str(), duplicates[0].similarity),
                ("a", Some(1.0))
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(&written[2], Written::Inserted { duplicates, .. } if duplicates.is_empty()));
    let Written::Inserted { id, .. } = &written[3] else {
        panic!("{:?}", written[3])
    };
    assert_eq!(
        store.get(id).unwrap().map(|d| d.fingerprint),
        Some(0xffff_0000_0000_0000)
    );
    assert_eq!(
        store.get("c").unwrap().and_then(|d| d.text).as_deref(),
        Some("another")
    );
    assert_eq!(store.stats().documents, 3);
}

/// Within one batch: an earlier insert that shares a short-document key is
/// a candidate at any distance (judged by its text), one deleted since is
/// not, and an id taken earlier in the batch is refused until deleted.
#[test]
fn a_batch_finds_its_own_inserts_by_key_and_by_id() {
    let dir = tempfile::tempdir().unwrap();
    let keyed = StoreSettings::builder(K)
        .texts(true)
        .short_keys("jaccard:0.8")
        .build();
    let store = Store::<u64>::open(dir.path(), Some(&keyed), small()).unwrap();
    let same = |a: &str, b: &str| (a == b).then_some(1.0);
    let far = u64::MAX;
    let writes = vec![
        Write::Insert(Insert::new(0, K).id("a").text("short").keys(vec![7])),
        Write::Insert(Insert::new(far, K).id("b").text("short").keys(vec![9])),
        // Shares key 7 with "a" and key 9 with "b"; both texts the same.
        Write::Insert(
            Insert::new(0x0f0f, K)
                .id("c")
                .text("short")
                .keys(vec![7, 9]),
        ),
        Write::Insert(Insert::new(1, K).id("a")),
        Write::Delete("a".into()),
        // "a" deleted: not a candidate any more, and its id free again.
        Write::Insert(Insert::new(0x00ff, K).id("a").text("short").keys(vec![7])),
    ];
    let written = store.write(writes, Some(&same)).unwrap();
    let ids = |w: &Written| match w {
        Written::Inserted { duplicates, .. } => {
            duplicates.iter().map(|d| d.id.clone()).collect::<Vec<_>>()
        }
        other => panic!("{other:?}"),
    };
    assert_eq!(ids(&written[2]), ["a", "b"]);
    assert!(matches!(&written[3], Written::IdTaken { id } if id == "a"));
    assert!(matches!(&written[4], Written::Deleted { .. }));
    assert_eq!(ids(&written[5]), ["c"]);
    assert_eq!(store.stats().documents, 3);
}

/// Counts the texts it prepares and the comparisons it makes.
struct CountingJudge {
    prepared: AtomicUsize,
    compared: AtomicUsize,
}

impl Judge for CountingJudge {
    fn against<'a>(&'a self, new: &'a str) -> Against<'a> {
        self.prepared.fetch_add(1, Ordering::Relaxed);
        Box::new(move |stored| {
            self.compared.fetch_add(1, Ordering::Relaxed);
            (new == stored).then_some(1.0)
        })
    }
}

#[test]
fn a_new_text_is_prepared_once_for_all_its_candidates() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::<u64>::open(dir.path(), Some(&settings(true)), small()).unwrap();
    let judge = CountingJudge {
        prepared: AtomicUsize::new(0),
        compared: AtomicUsize::new(0),
    };
    // Nine stored texts within k of one another: in segments (flush_at 6)
    // and among the recent documents.
    for i in 0..9u64 {
        let insert = Insert::new(0xf0 | (1 << i), K)
            .id(format!("s{i}"))
            .text(format!("text {i}"));
        store.write(vec![Write::Insert(insert)], None).unwrap();
    }
    // One batch: a text near all nine, and one after it near all ten.
    let writes = vec![
        Write::Insert(Insert::new(0xf0, K).id("new").text("text 3")),
        Write::Insert(Insert::new(0xf1, K).id("newer").text("text 4")),
    ];
    let written = store.write(writes, Some(&judge)).unwrap();
    let found: Vec<Vec<&str>> = written
        .iter()
        .map(|w| match w {
            Written::Inserted { duplicates, .. } => {
                duplicates.iter().map(|d| d.id.as_str()).collect()
            }
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(found, [vec!["s3"], vec!["s4"]]);
    assert_eq!(judge.compared.load(Ordering::Relaxed), 9 + 10);
    assert_eq!(
        judge.prepared.load(Ordering::Relaxed),
        2,
        "once per new text"
    );
    // A text with no candidate is not prepared at all.
    let far = Insert::new(0xffff_ffff_0000_0000, K).id("far").text("far");
    store.write(vec![Write::Insert(far)], Some(&judge)).unwrap();
    assert_eq!(judge.prepared.load(Ordering::Relaxed), 2);
}

#[test]
fn few_and_many_texts_to_judge_give_the_same_duplicates_in_the_same_order() {
    // A judge that keeps stored texts whose number is not a multiple of 3,
    // similarity by number: judged alone below 8 texts, on the cores from 8
    // on; the duplicates 1 and 2 bits away, ids against insertion order.
    let judge = |_new: &str, stored: &str| {
        let n: u32 = stored.trim_start_matches("text ").parse().ok()?;
        (!n.is_multiple_of(3)).then_some(f64::from(n) / 100.0)
    };
    for stored in 1..=14u64 {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::<u64>::open(dir.path(), Some(&settings(true)), small()).unwrap();
        let mut expected = Vec::new();
        for i in 0..stored {
            // 1 or 2 bits from the new text's fingerprint.
            let fingerprint: u64 = 0xf000 ^ (1 << i) ^ ((i % 2) << 14);
            let id = format!("s{:02}", stored - i);
            let insert = Insert::new(fingerprint, K)
                .id(id.as_str())
                .text(format!("text {i}"));
            store.write(vec![Write::Insert(insert)], None).unwrap();
            if !i.is_multiple_of(3) {
                expected.push((1 + (i % 2) as u32, id, Some(i as f64 / 100.0)));
            }
        }
        expected.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
        let new = Insert::new(0xf000, K).id("new").text("new");
        let written = store.write(vec![Write::Insert(new)], Some(&judge)).unwrap();
        let found: Vec<(u32, String, Option<f64>)> = match &written[0] {
            Written::Inserted { duplicates, .. } => duplicates
                .iter()
                .map(|d| (d.distance, d.id.clone(), d.similarity))
                .collect(),
            other => panic!("{other:?}"),
        };
        assert_eq!(found, expected, "{stored} stored texts");
    }
}

#[test]
fn a_second_opener_and_other_settings_are_refused_with_what_differs() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let second = Store::<u64>::open(dir.path(), None, small())
        .unwrap_err()
        .to_string();
    assert!(
        second.contains("another neardup is writing a store"),
        "{second}"
    );
    drop(store);
    let other = StoreSettings::builder(3).build();
    let err = Store::<u64>::open(dir.path(), Some(&other), small())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("other settings") && err.contains("k = 4, not 3"),
        "{err}"
    );
    let err = Store::<u128>::open(dir.path(), None, small())
        .unwrap_err()
        .to_string();
    assert!(err.contains("holds 64-bit fingerprints"), "{err}");
    let empty = tempfile::tempdir().unwrap();
    let err = Store::<u64>::open(empty.path(), None, small())
        .unwrap_err()
        .to_string();
    assert!(err.contains("holds no store"), "{err}");
    let store = open(dir.path());
    let err = store.query(1, K + 1).unwrap_err().to_string();
    assert!(err.contains("at most 4 bits apart"), "{err}");
}

#[test]
fn leftovers_of_an_interrupted_flush_go_and_merges_keep_deletions() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let writes = (0..40u64)
        .map(|i| Write::Insert(Insert::new(i << 20, K).id(format!("d{i}"))))
        .collect();
    store.write(writes, None).unwrap();
    store
        .write(
            vec![Write::Delete("d3".into()), Write::Delete("d30".into())],
            None,
        )
        .unwrap();
    drop(store);
    // A segment no manifest names, as a flush killed before its commit leaves.
    std::fs::write(dir.path().join("seg-999999.ndx"), b"half").unwrap();
    let store = reopen(dir.path());
    assert!(!dir.path().join("seg-999999.ndx").exists());
    assert_eq!(store.stats().documents, 38);
    assert!(store.query(3 << 20, 0).unwrap().is_empty());
    assert_eq!(store.query(4 << 20, 0).unwrap()[0].id, "d4");
}

#[test]
fn compaction_leaves_one_segment_and_the_same_answers() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let fps: Vec<u64> = (0..50u64)
        .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (i & 3))
        .collect();
    let writes = fps
        .iter()
        .enumerate()
        .map(|(i, &fp)| Write::Insert(Insert::new(fp, K).id(format!("d{i}"))))
        .collect();
    store.write(writes, None).unwrap();
    store
        .write(
            vec![Write::Delete("d7".into()), Write::Delete("d8".into())],
            None,
        )
        .unwrap();
    let before: Vec<Vec<Neighbour<String>>> =
        fps.iter().map(|&fp| store.query(fp, K).unwrap()).collect();
    store.compact().unwrap();
    let stats = store.stats();
    assert_eq!(
        (stats.segments.len(), stats.documents, stats.deleted),
        (1, 48, 0),
        "{stats:?}"
    );
    let after: Vec<Vec<Neighbour<String>>> =
        fps.iter().map(|&fp| store.query(fp, K).unwrap()).collect();
    assert_eq!(before, after);
    drop(store);
    let store = reopen(dir.path());
    assert_eq!(store.stats().segments.len(), 1);
    assert!(store.query(fps[7], 0).unwrap().is_empty());
}

#[test]
fn a_large_batch_finds_duplicates_among_its_own_inserts() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    // 300 inserts, each third one a near copy (2 bits off) of the one before.
    let mut fps = Vec::new();
    for i in 0..300u64 {
        fps.push(match i % 3 {
            2 => fps[i as usize - 1] ^ 0b101,
            _ => i.wrapping_mul(0x9e37_79b9_7f4a_7c15),
        });
    }
    let writes = fps
        .iter()
        .enumerate()
        .map(|(i, &fp)| Write::Insert(Insert::new(fp, K).id(format!("d{i}")).only_if_unique()))
        .collect();
    let written = store.write(writes, None).unwrap();
    for (i, w) in written.iter().enumerate() {
        // Brute force over the kept earlier ones.
        let kept_earlier = (0..i).filter(|&j| j % 3 != 2);
        let near: Vec<String> = kept_earlier
            .filter(|&j| (fps[j] ^ fps[i]).count_ones() <= K)
            .map(|j| format!("d{j}"))
            .collect();
        match w {
            Written::NotUnique { duplicates, .. } => {
                let ids: Vec<String> = duplicates.iter().map(|d| d.id.clone()).collect();
                assert_eq!(ids, near, "d{i}");
            }
            Written::Inserted { duplicates, .. } => {
                assert!(duplicates.is_empty() && near.is_empty(), "d{i}")
            }
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(store.stats().documents, 200);
}

#[test]
fn readers_open_beside_the_writer_and_search_a_snapshot() {
    let dir = tempfile::tempdir().unwrap();
    let writer = open(dir.path());
    let fps: Vec<u64> = (0..40u64)
        .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (i & 3))
        .collect();
    let insert = |i: usize| {
        let doc = Insert::new(fps[i], K).id(format!("d{i}"));
        writer.write(vec![Write::Insert(doc)], None).unwrap();
    };
    // One at a time: flushes every 6, merges two by two.
    (0..20).for_each(insert);
    let reader = Store::<u64>::open_read_only(dir.path()).unwrap();
    let answers = |store: &Store<u64>| -> Vec<Vec<Neighbour<String>>> {
        fps.iter().map(|&fp| store.query(fp, K).unwrap()).collect()
    };
    let seen = answers(&reader);
    assert_eq!(seen, answers(&writer));
    // The writer goes on, and compaction removes every segment file the
    // reader opened: the reader answers from its snapshot all the same.
    (20..40).for_each(insert);
    writer
        .write(vec![Write::Delete("d3".into())], None)
        .unwrap();
    writer.compact().unwrap();
    assert_eq!(answers(&reader), seen);
    assert_eq!(reader.stats().documents, 20);
    let refused = reader
        .write(vec![Write::Insert(Insert::new(7, K).id("x"))], None)
        .unwrap_err();
    assert!(refused.to_string().contains("reading only"), "{refused}");
    assert!(reader.compact().is_err());
    // A reader opened now sees all the writer acknowledged.
    let later = Store::<u64>::open_read_only(dir.path()).unwrap();
    assert_eq!(answers(&later), answers(&writer));
    let sorted = |store: &Store<u64>| {
        let mut all = store.entries();
        all.sort();
        all
    };
    assert_eq!(sorted(&later).len(), 39);
    assert_eq!(sorted(&later), sorted(&writer));
    assert_eq!(later.get("d5").unwrap(), writer.get("d5").unwrap());
    let empty = tempfile::tempdir().unwrap();
    let none = Store::<u64>::open_read_only(empty.path()).unwrap_err();
    assert!(none.to_string().contains("holds no store"), "{none}");
}

#[test]
fn a_deleted_newest_document_leaves_its_sequence_number_used() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let insert = |store: &Store<u64>, id: &str, fp: u64| {
        let written = store
            .write(vec![Write::Insert(Insert::new(fp, K).id(id))], None)
            .unwrap();
        assert!(
            matches!(written[0], Written::Inserted { .. }),
            "{written:?}"
        );
        store.get(id).unwrap().unwrap().seq
    };
    insert(&store, "a", 1);
    let newest = insert(&store, "b", 1 << 20);
    store.write(vec![Write::Delete("b".into())], None).unwrap();
    drop(store);
    let store = reopen(dir.path());
    let next = insert(&store, "c", 1 << 40);
    assert!(next > newest, "c given {next}, b had {newest}");
}

/// The writer knows an id is new without reading its record when the
/// view rules it out (`View::may_hold`): that must never rule out a
/// stored id, recent, frozen, in a flushed or a merged segment. Here
/// through background flushes and merges at whatever moments they fall
/// (the one between a flush's move of its records and its swap is pinned
/// by a unit test in `cold.rs`).
#[test]
fn a_stored_id_is_taken_at_every_moment_of_flushes_and_merges() {
    let dir = tempfile::tempdir().unwrap();
    let options = StoreOptions::builder().flush_at(40).merge_factor(3).build();
    let store = Store::<u64>::open(dir.path(), Some(&settings(false)), options).unwrap();
    let mut next = 0u64;
    let mut state = 7u64;
    let mut taken = 0;
    for round in 0..400 {
        let mut writes = Vec::new();
        for _ in 0..8 {
            writes.push(Write::Insert(
                Insert::new(next.wrapping_mul(0x9e37_79b9_7f4a_7c15), K).id(format!("u{next}")),
            ));
            next += 1;
        }
        // Two stored ids again, one of the last few hundred (recent or
        // frozen now, likely) and one of any age.
        for span in [next.min(300), next] {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let old = next - 1 - (state >> 33) % span;
            writes.push(Write::Insert(Insert::new(round, K).id(format!("u{old}"))));
        }
        for written in store.write(writes, None).unwrap() {
            match written {
                Written::Inserted { .. } => {}
                Written::IdTaken { .. } => taken += 1,
                other => panic!("{other:?}"),
            }
        }
    }
    assert_eq!(taken, 800);
    store.wait_for_flush();
    let stats = store.stats();
    assert_eq!(stats.documents, next as usize);
    // The flushes counted (each of at least `flush_at` documents), with
    // their time and the records' part of it.
    let flushed: usize = stats.segments.iter().sum();
    assert!(
        (1..=flushed / 40).contains(&(stats.flushes as usize)),
        "{stats:?}"
    );
    assert!(stats.flush_time >= stats.flush_records_time);
    assert!(!stats.flush_records_time.is_zero());
}
