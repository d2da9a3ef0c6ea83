//! What an insert is told of: its duplicates among the stored documents
//! and its own batch, by fingerprint and by short-document key, judged by
//! their texts, each new text prepared once.

use std::sync::atomic::{AtomicUsize, Ordering};

use neardup_store::{Against, Insert, Judge, Store, StoreSettings, Write, Written};

use crate::small_store::{K, open, settings, small};

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
