//! Segment files: what is written is read back and answers as the index
//! it was built from; damaged, cut or foreign files are refused.

use neardup_core::Width;
use neardup_index::{Bits, Error, OnlineIndex, Segment, TablePlan};

use crate::join::{Rng, planted};

fn names(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("doc-{i}-é")).collect()
}

fn round_trip<B: Bits>(width: Width, fps: &[B]) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.ndx");
    let plan = TablePlan::new(width, 3, 5).unwrap();
    let names = names(fps.len());
    Segment::write(&path, plan.clone(), fps, &names).unwrap();
    let segment = Segment::<B>::open(&path).unwrap();
    let index = OnlineIndex::build(plan, fps).unwrap();
    assert_eq!(segment.len(), fps.len());
    assert_eq!(segment.fingerprints(), fps);
    for (i, &q) in fps.iter().enumerate() {
        assert_eq!(segment.query(q), index.query(q));
        assert_eq!(segment.name(i as u32), Some(names[i].as_str()));
    }
    assert_eq!(segment.name(fps.len() as u32), None);
}

#[test]
fn segments_round_trip() {
    let mut rng = Rng(11);
    let fps = planted(500, 3, 64, &mut rng);
    round_trip(
        Width::W64,
        &fps.iter().map(|&x| x as u64).collect::<Vec<_>>(),
    );
    round_trip(Width::W128, &planted(300, 3, 128, &mut rng));
    round_trip::<u64>(Width::W64, &[]);
}

fn written() -> (tempfile::TempDir, std::path::PathBuf, Vec<u8>) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.ndx");
    let mut rng = Rng(5);
    let fps: Vec<u64> = planted(200, 3, 64, &mut rng)
        .iter()
        .map(|&x| x as u64)
        .collect();
    let plan = TablePlan::new(Width::W64, 3, 5).unwrap();
    Segment::write(&path, plan, &fps, &names(fps.len())).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    (dir, path, bytes)
}

fn format_error(path: &std::path::Path) -> String {
    match Segment::<u64>::open(path) {
        Err(Error::Format(p, what)) => {
            assert_eq!(p, path);
            what
        }
        other => panic!("expected a format error, got {other:?}"),
    }
}

#[test]
fn cut_damaged_and_foreign_files_are_refused() {
    let (_dir, path, bytes) = written();
    let good = Segment::<u64>::open(&path).unwrap();
    let answers: Vec<_> = good.fingerprints().iter().map(|&q| good.query(q)).collect();
    drop(good);

    // Cut anywhere: refused.
    for len in [0, 10, 63, 64, 100, bytes.len() / 2, bytes.len() - 1] {
        std::fs::write(&path, &bytes[..len]).unwrap();
        assert!(Segment::<u64>::open(&path).is_err(), "cut at {len}");
    }
    // One byte changed anywhere: refused, or (in padding, which nothing
    // reads) the same answers.
    let mut rng = Rng(9);
    for _ in 0..300 {
        let mut damaged = bytes.clone();
        let at = rng.below(bytes.len() as u64) as usize;
        damaged[at] ^= 1 << rng.below(8);
        std::fs::write(&path, &damaged).unwrap();
        if let Ok(s) = Segment::<u64>::open(&path) {
            let same: Vec<_> = s.fingerprints().iter().map(|&q| s.query(q)).collect();
            assert_eq!(same, answers, "byte {at} changed the answers");
        }
    }
    // Foreign files.
    std::fs::write(&path, "{\"id\": 1}\n".repeat(20)).unwrap();
    assert!(format_error(&path).contains("not a neardup index segment"));
    // Another version, with a header that is otherwise sound.
    let mut other = bytes.clone();
    other[8..12].copy_from_slice(&2u32.to_le_bytes());
    let sum = xxhash_rust::xxh3::xxh3_64(&other[..56]);
    other[56..64].copy_from_slice(&sum.to_le_bytes());
    std::fs::write(&path, &other).unwrap();
    assert!(format_error(&path).contains("format version 2; this neardup reads version 1"));
    // A count that would wrap the length checks.
    let mut huge = bytes.clone();
    huge[32..40].copy_from_slice(&((1u64 << 61) + 200).to_le_bytes());
    let sum = xxhash_rust::xxh3::xxh3_64(&huge[..56]);
    huge[56..64].copy_from_slice(&sum.to_le_bytes());
    std::fs::write(&path, &huge).unwrap();
    assert!(format_error(&path).contains("fingerprints; a segment holds fewer"));
    // Another width.
    std::fs::write(&path, &bytes).unwrap();
    assert!(matches!(
        Segment::<u128>::open(&path),
        Err(Error::Format(..))
    ));
    assert!(matches!(
        Segment::<u64>::open(&path.with_extension("missing")),
        Err(Error::Io(..))
    ));
}

#[test]
fn index_directories_take_inserts_and_commit_them() {
    use neardup_index::{IndexDir, Match};
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng(17);
    let fps: Vec<u64> = planted(300, 3, 64, &mut rng)
        .iter()
        .map(|&x| x as u64)
        .collect();
    let plan = TablePlan::new(Width::W64, 3, 5).unwrap();
    let all = names(fps.len());
    IndexDir::create(dir.path(), plan, &fps[..100], &all[..100]).unwrap();
    let mut index = IndexDir::<u64>::open(dir.path()).unwrap();
    for (fp, name) in fps[100..200].iter().zip(&all[100..200]) {
        index.insert(*fp, name).unwrap();
    }
    assert!(index.insert(fps[0], &all[150]).is_err(), "names are unique");
    // Queries see the mutable part at once; the answer is brute force's,
    // by name.
    let brute = |q: u64, n: usize| -> Vec<(u32, String)> {
        let mut v: Vec<(u32, String)> = fps[..n]
            .iter()
            .zip(&all)
            .filter(|(f, _)| f.distance(q) <= 3)
            .map(|(f, name)| (f.distance(q), name.clone()))
            .collect();
        v.sort();
        v
    };
    let named = |index: &IndexDir<u64>, found: Vec<Match>| -> Vec<(u32, String)> {
        let mut v: Vec<(u32, String)> = found
            .iter()
            .map(|m| (m.distance, index.name(m.id).unwrap().to_string()))
            .collect();
        v.sort();
        v
    };
    for &q in &fps {
        assert_eq!(named(&index, index.query(q)), brute(q, 200));
    }
    assert_eq!(index.pending(), 100);
    index.commit().unwrap();
    index.add(&fps[200..], &all[200..]).unwrap();
    drop(index);
    let reopened = IndexDir::<u64>::open(dir.path()).unwrap();
    assert_eq!(reopened.segment().len(), fps.len());
    assert_eq!(reopened.pending(), 0);
    for &q in &fps {
        assert_eq!(named(&reopened, reopened.query(q)), brute(q, fps.len()));
    }
    let mut files: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|f| f.unwrap().file_name().into_string().unwrap())
        .collect();
    files.sort();
    assert_eq!(
        files,
        ["LOCK", "MANIFEST", "seg-000003.ndx"],
        "the lock, the manifest and one segment"
    );
}

/// One writer at a time: a second is refused while the first holds the
/// directory, and refused after it too if the first changed the index
/// under it; the files an interrupted writer left go at the next write.
#[test]
fn one_writer_at_a_time() {
    use neardup_index::IndexDir;
    let dir = tempfile::tempdir().unwrap();
    let plan = TablePlan::pigeonhole(Width::W64, 3).unwrap();
    IndexDir::create(dir.path(), plan, &[1u64, 2], &["a", "b"]).unwrap();
    let mut first = IndexDir::<u64>::open(dir.path()).unwrap();
    let mut second = IndexDir::<u64>::open(dir.path()).unwrap();
    first.add(&[3u64], &["c"]).unwrap();
    let busy = second.add(&[4u64], &["d"]).unwrap_err().to_string();
    assert!(busy.contains("another neardup is writing"), "{busy}");
    drop(first);
    let stale = second.add(&[4u64], &["d"]).unwrap_err().to_string();
    assert!(stale.contains("since this one opened it"), "{stale}");
    // What a killed writer leaves: a temporary segment, an old segment.
    std::fs::write(dir.path().join(".seg-000009.ndx.77.tmp"), b"half").unwrap();
    std::fs::write(dir.path().join("seg-000001.ndx"), b"old").unwrap();
    let mut third = IndexDir::<u64>::open(dir.path()).unwrap();
    third.add(&[4u64], &["d"]).unwrap();
    drop(third);
    assert_eq!(
        IndexDir::<u64>::open(dir.path()).unwrap().segment().len(),
        4
    );
    assert!(!dir.path().join(".seg-000009.ndx.77.tmp").exists());
    assert!(!dir.path().join("seg-000001.ndx").exists());
}
