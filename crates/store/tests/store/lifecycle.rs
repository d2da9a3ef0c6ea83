//! A store's life: a second opener and other settings refused, an
//! interrupted flush's leftovers removed, compaction, readers beside the
//! writer, sequence numbers never given twice.

use neardup_index::Neighbour;
use neardup_store::{Insert, Store, StoreSettings, Write, Written};

use crate::small_store::{K, open, reopen, small};

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
