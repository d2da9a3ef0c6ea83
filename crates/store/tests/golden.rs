//! The store layout pinned: a store written by this code is committed in
//! `tests/golden/store_v1/` with what it holds in
//! `tests/golden/store_v1.jsonl` (each document's id, fingerprint, text,
//! short-document keys, and the answer to a query of its fingerprint), and
//! every build must open it and find exactly that, and write the same
//! documents to the same bytes.
//!
//! The files are written once per layout version: after a deliberate change
//! of the layout ([`neardup_store::STORE_LAYOUT`]) or of the segment format
//! it holds ([`neardup_index::SEGMENT_FORMAT`]), bump the version and run
//! `NEARDUP_BLESS=1 cargo test -p neardup-store --test golden`; it
//! refuses to overwrite the files of a version that has them. The golden
//! stores of earlier layouts stay, and every build opens them too.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use neardup_core::{FingerprintSettings, Fingerprinter, Profile};
use neardup_index::{SEGMENT_FORMAT, Segment};
use neardup_store::{Insert, STORE_LAYOUT, Store, StoreOptions, StoreSettings, Write, Written};
use serde_json::{Value, json};

/// The k of the golden store.
const K: u32 = 3;

/// Segments of this many documents, so that the golden store holds a
/// segment, recent documents, and a deleted segment entry.
const FLUSH_AT: usize = 16;

/// The document deleted after the others are written.
const DELETED: &str = "d03";

const TEXTS: [&str; 24] = [
    "The river rose in the night and the town woke to water in every street.",
    "The river rose in the night and the town woke to water in every lane.",
    "A recipe for bread: flour, water, salt and yeast, and a warm room.",
    "A recipe for bread: flour, water, salt, yeast and a warm kitchen.",
    "The committee met on Tuesday to discuss the new budget for schools.",
    "The committee met on Tuesday to discuss the new budget for the schools.",
    "Stock markets fell sharply after the central bank raised interest rates.",
    "Heavy snow closed the mountain pass for the third time this winter.",
    "The museum opened a new wing devoted to early photography and film.",
    "Scientists found a new species of frog in the forests of the north.",
    "The team won the final after extra time and a penalty shoot-out.",
    "Volunteers planted a thousand trees along the old railway line.",
    "今天天气很好，我们去公园散步，看到很多人在跑步和打太极拳。",
    "今天天气很好，我们去公园散步，看到许多人在跑步和打太极拳。",
    "北京的地铁网络在过去十年里迅速扩展，方便了市民的出行。",
    "ok",
    "ok!",
    "",
    "The library will close early on Friday for staff training.",
    "The library will close early on Friday for the staff training day.",
    "A small earthquake shook the coastal town but caused no damage.",
    "The orchestra played Beethoven's ninth symphony to a full hall.",
    "Farmers expect a good harvest after a mild and wet spring.",
    "The bridge will be repaired over the summer, the council said.",
];

/// One document of the golden store, as its `.jsonl` file records it.
#[derive(Clone, Debug, PartialEq)]
struct Golden {
    id: String,
    fingerprint: u128,
    text: String,
    keys: Vec<u64>,
    /// The hits of a query of its fingerprint within `K`, nearest first
    /// (`None`: the document is deleted).
    near: Option<Vec<(String, u32)>>,
}

/// The layouts of the stores that the present one's writer still opens.
const FORMER_LAYOUTS: [&str; 8] = ["1", "2", "3", "4", "5", "6", "7", "8"];

fn golden_dir(layout: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/golden/store_v{layout}"))
}

fn golden_file(layout: &str) -> PathBuf {
    golden_dir(layout).with_extension("jsonl")
}

fn options() -> StoreOptions {
    StoreOptions::builder().flush_at(FLUSH_AT).build()
}

fn fingerprinter() -> Fingerprinter {
    Fingerprinter::new(Profile::Auto).unwrap()
}

fn settings() -> StoreSettings {
    StoreSettings::builder(K)
        .fingerprint(fingerprinter().settings())
        .texts(true)
        .short_keys("jaccard:0.8")
        .build()
}

/// Writes the golden documents into a new store at `dir`, one write per
/// document, then deletes [`DELETED`]: the same writes give the same files.
fn write_store(dir: &Path) -> Store<u64> {
    let store = Store::<u64>::open(dir, Some(&settings()), options()).unwrap();
    let fingerprinter = fingerprinter();
    for (i, text) in TEXTS.iter().enumerate() {
        let fingerprint = fingerprinter.fingerprint(text).as_u64().unwrap();
        // Short texts keep a key, as the dedup rule's would be.
        let keys = match text.len() < 8 {
            true => vec![text.len() as u64],
            false => Vec::new(),
        };
        let insert = Insert::new(fingerprint, K)
            .id(format!("d{i:02}"))
            .text(*text)
            .keys(keys);
        let written = store.write(vec![Write::Insert(insert)], None).unwrap();
        assert!(
            matches!(written[0], Written::Inserted { .. }),
            "{written:?}"
        );
    }
    store
        .write(vec![Write::Delete(DELETED.to_string())], None)
        .unwrap();
    // The flush runs in the background: the files are compared once done.
    store.wait_for_flush();
    store
}

/// What `store` holds, each document with the answer to a query of its
/// fingerprint.
fn read_store(store: &Store<u64>) -> Vec<Golden> {
    let fingerprinter = fingerprinter();
    let mut read = Vec::new();
    for (i, text) in TEXTS.iter().enumerate() {
        let id = format!("d{i:02}");
        let fingerprint = fingerprinter.fingerprint(text).bits();
        let stored = store.get(&id).unwrap();
        let near = stored.as_ref().map(|_| {
            store
                .query(fingerprint as u64, K)
                .unwrap()
                .into_iter()
                .map(|hit| (hit.id, hit.distance))
                .collect()
        });
        let keys = store
            .query_keys(fingerprint as u64, &[text.len() as u64])
            .unwrap()
            .into_iter()
            .filter(|hit| hit.id == id)
            .map(|_| text.len() as u64)
            .collect();
        read.push(Golden {
            id,
            fingerprint: stored.as_ref().map_or(fingerprint, |d| d.fingerprint),
            // A deleted document's text is the one it was written with.
            text: match stored {
                Some(document) => document.text.unwrap_or_default(),
                None => text.to_string(),
            },
            keys,
            near,
        });
    }
    read
}

fn to_line(golden: &Golden) -> String {
    json!({
        "id": golden.id,
        "fingerprint": format!("{:016x}", golden.fingerprint),
        "text": golden.text,
        "keys": golden.keys,
        "near": golden.near,
    })
    .to_string()
}

fn from_line(line: &str) -> Golden {
    let value: Value = serde_json::from_str(line).unwrap();
    Golden {
        id: value["id"].as_str().unwrap().to_string(),
        fingerprint: u128::from_str_radix(value["fingerprint"].as_str().unwrap(), 16).unwrap(),
        text: value["text"].as_str().unwrap().to_string(),
        keys: serde_json::from_value(value["keys"].clone()).unwrap(),
        near: serde_json::from_value(value["near"].clone()).unwrap(),
    }
}

/// Every file of `dir` by name, with its bytes.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&path).unwrap())
        })
        .collect()
}

/// A copy of the golden store to open (opening may tidy a store's
/// directory, and the committed one stays as it is).
fn copy_of_golden(layout: &str) -> tempfile::TempDir {
    let dir = golden_dir(layout);
    assert!(
        dir.is_dir(),
        "{} is missing: it is written once per layout version, by \
         NEARDUP_BLESS=1 cargo test -p neardup-store --test golden",
        dir.display()
    );
    let copy = tempfile::tempdir().unwrap();
    for (name, bytes) in files(&dir) {
        std::fs::write(copy.path().join(name), bytes).unwrap();
    }
    copy
}

#[test]
fn the_golden_store_holds_what_its_file_says() {
    write_golden_when_asked();
    check_golden(STORE_LAYOUT);
}

#[test]
fn the_golden_stores_of_the_former_layouts_open_and_take_writes() {
    for layout in FORMER_LAYOUTS {
        former_layout_opens_and_takes_writes(layout);
    }
}

fn former_layout_opens_and_takes_writes(layout: &str) {
    let copy = check_golden(layout);
    // Its writer recorded the present layout, and its records (in the log,
    // at layout 1) are found through flushes of new documents.
    let expected = expected(layout);
    // Its one segment is of a former format up to layout 7.
    let former = segment_formats(copy.path())
        .iter()
        .filter(|&&format| format < SEGMENT_FORMAT)
        .count();
    assert_eq!(former, usize::from(layout.parse::<u32>().unwrap() < 8));
    let store = Store::<u64>::open(copy.path(), None, options()).unwrap();
    assert_eq!(store.stats().former_segments, former);
    let writes = (0..FLUSH_AT as u64)
        .map(|i| Write::Insert(Insert::new(1 << 40 | i << 20, K).id(format!("n{i}"))))
        .collect();
    store.write(writes, None).unwrap();
    store.wait_for_flush();
    assert_eq!(store.stats().segments.len(), 2);
    assert_eq!(read_store(&store), expected);
    // Its ids are taken: those in its segment (of the former format, with
    // no table of names, at layouts 1 to 7), its recent ones, and those
    // of the new segment.
    let again = ["d01", "d20", "n3"].map(|id| Write::Insert(Insert::new(7u64, K).id(id)));
    for written in store.write(again.into(), None).unwrap() {
        assert!(matches!(written, Written::IdTaken { .. }), "{written:?}");
    }
    store
        .write(vec![Write::Delete("d00".into())], None)
        .unwrap();
    assert_eq!(store.get("d00").unwrap(), None);
    // Compacted, its segments are of the present format.
    store.compact().unwrap();
    assert_eq!(segment_formats(copy.path()), [SEGMENT_FORMAT]);
    assert_eq!(store.stats().former_segments, 0);
    // Its ids are taken still, ruled out by no filter of the new segment.
    let again = ["d01", "d05", "n3"].map(|id| Write::Insert(Insert::new(7u64, K).id(id)));
    for written in store.write(again.into(), None).unwrap() {
        assert!(matches!(written, Written::IdTaken { .. }), "{written:?}");
    }
    assert_eq!(read_store(&store)[1..], expected[1..]);
    drop(store);
    let reader = Store::<u64>::open_read_only(copy.path()).unwrap();
    assert_eq!(read_store(&reader)[1..], expected[1..]);
    assert_eq!(reader.get("d00").unwrap(), None);
    assert!(reader.get("n3").unwrap().is_some());
    assert!(copy.path().join("documents.redb").exists());
}

/// The formats of the segments in `dir`.
fn segment_formats(dir: &Path) -> Vec<u32> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ndx"))
        .map(|p| Segment::<u64>::open(&p).unwrap().format())
        .collect()
}

fn expected(layout: &str) -> Vec<Golden> {
    std::fs::read_to_string(golden_file(layout))
        .unwrap()
        .lines()
        .map(from_line)
        .collect()
}

/// Opens a copy of the golden store of `layout` to read, then to write,
/// and checks that it holds what its file says; returns the copy.
fn check_golden(layout: &str) -> tempfile::TempDir {
    let copy = copy_of_golden(layout);
    let store = Store::<u64>::open_read_only(copy.path()).unwrap();
    assert_eq!(store.settings(), &settings());
    assert_eq!(
        StoreSettings::of(copy.path()).unwrap().unwrap().to_json(),
        json!({
            "width": 64, "k": 3, "texts": true, "short_keys": "jaccard:0.8",
            "fingerprint": {"format": 2, "profile": "auto", "width": 64, "hash": null,
                "features": null, "weighting": null, "top_k": null, "stop_words": null,
                "idf": null},
        })
    );
    let expected = expected(layout);
    assert_eq!(expected.len(), TEXTS.len());
    assert_eq!(read_store(&store), expected);
    let stats = store.stats();
    assert_eq!(
        (stats.documents, stats.segments, stats.recent, stats.deleted),
        (23, vec![FLUSH_AT], 8, 1)
    );
    let mut entries = store.entries();
    entries.sort();
    let mut wanted: Vec<(String, u128)> = expected
        .iter()
        .filter(|g| g.near.is_some())
        .map(|g| (g.id.clone(), g.fingerprint))
        .collect();
    wanted.sort();
    assert_eq!(entries, wanted);
    // Its fingerprints are the ones its recorded settings make.
    let recorded: FingerprintSettings = store.settings().fingerprint.clone().unwrap();
    let made = Fingerprinter::from_settings(&recorded).unwrap();
    for golden in &expected {
        assert_eq!(
            made.fingerprint(&golden.text).bits(),
            golden.fingerprint,
            "{}",
            golden.id
        );
    }
    // A writer opens it too, and adds to it.
    let store = Store::<u64>::open(copy.path(), None, options()).unwrap();
    store
        .write(vec![Write::Insert(Insert::new(1, K).id("new"))], None)
        .unwrap();
    assert_eq!(store.stats().documents, 24);
    assert_eq!(read_store(&store), expected);
    copy
}

#[test]
fn the_same_writes_give_the_same_files() {
    write_golden_when_asked();
    let golden = copy_of_golden(STORE_LAYOUT);
    let again = tempfile::tempdir().unwrap();
    drop(write_store(again.path()));
    // The segment files are ours and byte for byte the same: they record no
    // time, random name or process id. The log is redb's file, whose bytes
    // depend on when its commits and the segment's flush interleave (a
    // release build lays it out otherwise than a debug one): what it holds
    // is compared instead, as a reader of the layout sees it.
    let (golden_files, again_files) = (files(golden.path()), files(again.path()));
    assert_eq!(
        golden_files.keys().collect::<Vec<_>>(),
        again_files.keys().collect::<Vec<_>>()
    );
    for (name, bytes) in golden_files
        .iter()
        .filter(|(name, _)| name.ends_with(".ndx"))
    {
        assert!(
            &again_files[name] == bytes,
            "{name} differs from the golden store's"
        );
    }
    let golden = Store::<u64>::open_read_only(golden.path()).unwrap();
    let again = Store::<u64>::open_read_only(again.path()).unwrap();
    assert_eq!(read_store(&again), read_store(&golden));
    assert_eq!(again.stats(), golden.stats());
    assert_eq!(again.settings(), golden.settings());
}

/// With `NEARDUP_BLESS=1`, writes the golden store and its file for
/// the current layout version, once per run; refuses when they exist.
fn write_golden_when_asked() {
    static WRITTEN: OnceLock<()> = OnceLock::new();
    if std::env::var_os("NEARDUP_BLESS").is_none() {
        return;
    }
    WRITTEN.get_or_init(|| {
        let (dir, file) = (golden_dir(STORE_LAYOUT), golden_file(STORE_LAYOUT));
        assert!(
            !dir.exists() && !file.exists(),
            "{} exists: the golden store of a layout version is written once; bump \
             STORE_LAYOUT (crates/store/src/log.rs) when the layout changes",
            dir.display()
        );
        std::fs::create_dir_all(&dir).unwrap();
        let store = write_store(&dir);
        let lines: Vec<String> = read_store(&store).iter().map(to_line).collect();
        drop(store);
        // The write-ahead log's zeros after its header are left out: its
        // writer makes them again at its open.
        let wal = std::fs::OpenOptions::new()
            .write(true)
            .open(dir.join("store.wal"));
        wal.and_then(|f| f.set_len(16)).unwrap();
        std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    });
}
