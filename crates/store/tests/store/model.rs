//! The store against a model: whatever the order of inserts, deletes,
//! flushes, background merges and reopenings, a query finds exactly the
//! stored documents within `k` bits, as brute force over the model does,
//! and so does an insert's search for its duplicates (searched by the
//! writer, or before, with a presearch of any age); and no sequence number
//! is given twice.

use std::collections::{BTreeMap, HashMap};

use neardup_index::Neighbour;
use neardup_store::{Insert, Store, StoreOptions, Write, Written};
use proptest::prelude::*;

use crate::small_store::{K, open, reopen, settings};

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
