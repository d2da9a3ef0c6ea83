//! The segment format pinned: a segment file written by this code is
//! committed as `tests/golden/segment_vN.seg` (N the format version), with
//! what it holds in `tests/golden/segment_vN.jsonl` (each entry's name,
//! fingerprint, and the answer to a query of it), and every build must
//! open it and find exactly that, and write the same entries to the same
//! bytes.
//!
//! The files are written once per format version: after a deliberate
//! change of the format, bump [`neardup_index::SEGMENT_FORMAT`] and run
//! `NEARDUP_BLESS=1 cargo test -p neardup-index --test tests golden`;
//! it refuses to overwrite the files of a version that has them. The
//! golden segments of former versions that are still read stay, and every
//! build opens them too.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use neardup_core::Width;
use neardup_index::{NameHash, SEGMENT_FORMAT, Segment, TablePlan};
use serde_json::{Value, json};

/// The k of the golden segment's plan.
const K: u32 = 3;

/// One entry of the golden segment, as its `.jsonl` file records it.
#[derive(Debug, PartialEq)]
struct Entry {
    name: String,
    fingerprint: u64,
    /// Its sequence number (none in formats 1 and 2).
    seq: Option<u64>,
    /// The names of the entries a query of its fingerprint finds, with
    /// their distances, nearest first.
    near: Vec<(String, u32)>,
}

/// The former format versions this build still reads.
const FORMER: [u32; 2] = [1, 2];

fn golden_file(version: u32, extension: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(format!("tests/golden/segment_v{version}.{extension}"))
}

fn plan() -> TablePlan {
    TablePlan::new(Width::W64, K, 5).unwrap()
}

/// 32 fingerprints: 20 drawn at random (SplitMix64, seed 1), and 12 copies
/// of some of them with one to four bits flipped, so that queries find
/// neighbours within k and just past it.
fn fingerprints() -> Vec<u64> {
    let mut state = 1u64;
    let mut next = || {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    let mut fps: Vec<u64> = (0..20).map(|_| next()).collect();
    for i in 0..12u32 {
        let flips = 1 + i % 4;
        let mut copy = fps[i as usize];
        for bit in 0..flips {
            copy ^= 1 << ((i * 7 + bit * 13) % 64);
        }
        fps.push(copy);
    }
    fps
}

/// Names with non-ASCII text, as ids can have.
fn names() -> Vec<String> {
    (0..32).map(|i| format!("doc-{i:02}-é")).collect()
}

/// Sequence numbers out of order, some with the top bit set (as a store
/// marks those whose records lie in its documents file).
fn seqs() -> Vec<u64> {
    (0..32u64)
        .map(|i| (1_000 + 37 * (i % 7) + i) | if i % 5 == 0 { 1 << 63 } else { 0 })
        .collect()
}

/// What `segment` holds, each entry with the answer to a query of it.
fn read(segment: &Segment<u64>) -> Vec<Entry> {
    let name = |id: u32| segment.name(id).unwrap().to_string();
    segment
        .fingerprints()
        .iter()
        .enumerate()
        .map(|(i, &fingerprint)| {
            let mut near: Vec<(String, u32)> = segment
                .query(fingerprint)
                .into_iter()
                .map(|m| (name(m.id), m.distance))
                .collect();
            near.sort_by(|a, b| (a.1, &a.0).cmp(&(b.1, &b.0)));
            Entry {
                name: name(i as u32),
                fingerprint,
                seq: segment.seq(i as u32),
                near,
            }
        })
        .collect()
}

fn to_line(entry: &Entry) -> String {
    let mut line = json!({
        "name": entry.name,
        "fingerprint": format!("{:016x}", entry.fingerprint),
        "near": entry.near,
    });
    if let Some(seq) = entry.seq {
        line["seq"] = json!(seq);
    }
    line.to_string()
}

fn from_line(line: &str) -> Entry {
    let value: Value = serde_json::from_str(line).unwrap();
    Entry {
        name: value["name"].as_str().unwrap().to_string(),
        fingerprint: u64::from_str_radix(value["fingerprint"].as_str().unwrap(), 16).unwrap(),
        seq: value.get("seq").map(|seq| seq.as_u64().unwrap()),
        near: serde_json::from_value(value["near"].clone()).unwrap(),
    }
}

/// With `NEARDUP_BLESS=1`, writes the golden segment and its file
/// for the current format version, once per run; refuses when they exist.
fn write_golden_when_asked() {
    static WRITTEN: OnceLock<()> = OnceLock::new();
    if std::env::var_os("NEARDUP_BLESS").is_none() {
        return;
    }
    WRITTEN.get_or_init(|| {
        let (segment, file) = (
            golden_file(SEGMENT_FORMAT, "seg"),
            golden_file(SEGMENT_FORMAT, "jsonl"),
        );
        assert!(
            !segment.exists() && !file.exists(),
            "{} exists: the golden segment of a format version is written once; bump \
             SEGMENT_FORMAT (crates/index/src/segment.rs) when the format changes",
            segment.display()
        );
        std::fs::create_dir_all(segment.parent().unwrap()).unwrap();
        Segment::write_with_seqs(&segment, plan(), &fingerprints(), names(), seqs()).unwrap();
        let lines: Vec<String> = read(&Segment::open(&segment).unwrap())
            .iter()
            .map(to_line)
            .collect();
        std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    });
}

fn golden_segment(version: u32) -> Segment<u64> {
    let path = golden_file(version, "seg");
    assert!(
        path.exists(),
        "{} is missing: it is written once per format version, by \
         NEARDUP_BLESS=1 cargo test -p neardup-index --test tests golden",
        path.display()
    );
    Segment::open(&path).unwrap()
}

#[test]
fn golden_segment_holds_what_its_file_says() {
    write_golden_when_asked();
    for version in FORMER.into_iter().chain([SEGMENT_FORMAT]) {
        let segment = golden_segment(version);
        assert_eq!(segment.plan(), &plan());
        assert_eq!(segment.fingerprints(), &fingerprints()[..]);
        let expected: Vec<Entry> = std::fs::read_to_string(golden_file(version, "jsonl"))
            .unwrap()
            .lines()
            .map(from_line)
            .collect();
        assert_eq!(read(&segment), expected, "version {version}");
        // The copies find what they were copied from, and no more than k away.
        let found: usize = expected.iter().map(|e| e.near.len() - 1).sum();
        assert!(found >= 12, "{found} neighbours found");
        assert!(expected.iter().flat_map(|e| &e.near).all(|(_, d)| *d <= K));
        // Its filter rules out none of its names.
        assert!(
            names()
                .iter()
                .all(|n| segment.may_have_name(&NameHash::of(n)))
        );
    }
}

#[test]
fn the_golden_filter_rules_out_names_it_does_not_hold_and_format_1_none() {
    write_golden_when_asked();
    let others: Vec<String> = (32..1032).map(|i| format!("doc-{i:02}-é")).collect();
    let passing = |segment: &Segment<u64>| {
        others
            .iter()
            .filter(|n| segment.may_have_name(&NameHash::of(n)))
            .count()
    };
    // 32 names in 2 blocks: a name not held passes with the chance of
    // eight bits set in its block, here none of the thousand.
    for version in [2, SEGMENT_FORMAT] {
        assert_eq!(passing(&golden_segment(version)), 0, "version {version}");
    }
    assert_eq!(passing(&golden_segment(1)), others.len());
}

#[test]
fn the_golden_table_of_names_finds_each_entry_and_former_formats_have_none() {
    write_golden_when_asked();
    let segment = golden_segment(SEGMENT_FORMAT);
    for (i, name) in names().iter().enumerate() {
        assert_eq!(
            segment.entries_named(name, &NameHash::of(name)),
            Some(vec![i as u32]),
            "{name}"
        );
    }
    for other in (32..1032).map(|i| format!("doc-{i:02}-é")) {
        assert_eq!(
            segment.entries_named(&other, &NameHash::of(&other)),
            Some(vec![]),
            "{other}"
        );
    }
    assert_eq!(
        (0..32).map(|i| segment.seq(i).unwrap()).collect::<Vec<_>>(),
        seqs()
    );
    for version in FORMER {
        let former = golden_segment(version);
        assert_eq!(
            former.entries_named(&names()[0], &NameHash::of(&names()[0])),
            None
        );
        assert_eq!(former.seq(0), None);
    }
}

#[test]
fn golden_segment_is_written_again_byte_for_byte() {
    write_golden_when_asked();
    let golden = std::fs::read(golden_segment(SEGMENT_FORMAT).path()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("again.seg");
    // A segment records no time, name or path: the same entries give the
    // same bytes.
    Segment::write_with_seqs(&path, plan(), &fingerprints(), names(), seqs()).unwrap();
    assert!(
        std::fs::read(&path).unwrap() == golden,
        "the segment written again differs"
    );
}
