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
    Segment::write(&path, plan, &fps, names(fps.len())).unwrap();
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
    let versioned = |version: u32| {
        let mut other = bytes.clone();
        other[8..12].copy_from_slice(&version.to_le_bytes());
        let sum = xxhash_rust::xxh3::xxh3_64(&other[..56]);
        other[56..64].copy_from_slice(&sum.to_le_bytes());
        other
    };
    std::fs::write(&path, versioned(4)).unwrap();
    assert!(format_error(&path).contains("format version 4; this neardup reads versions 1 to 3"));
    // The former versions, which have fewer sections: they do not fit.
    for former in [1, 2] {
        std::fs::write(&path, versioned(former)).unwrap();
        assert!(format_error(&path).contains("sections do not fit its plan"));
    }
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
fn names_that_do_not_match_leave_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.ndx");
    let plan = TablePlan::new(Width::W64, 3, 5).unwrap();
    let fps = [1u64, 2, 3];
    for (given, names) in [(2, names(2)), (4, names(4))] {
        match Segment::write(&path, plan.clone(), &fps, &names) {
            Err(Error::NamesMismatch {
                names,
                fingerprints: 3,
            }) => assert_eq!(names, given),
            other => panic!("expected a names mismatch, got {other:?}"),
        }
        // Neither the segment nor its temporary file.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}

/// (distance, number) of every fingerprint of `fps` within 3 bits of `q`,
/// by brute force, sorted.
fn within_3(fps: &[u64], q: u64) -> Vec<(u32, u32)> {
    let mut near: Vec<(u32, u32)> = fps
        .iter()
        .enumerate()
        .map(|(i, &fp)| ((fp ^ q).count_ones(), i as u32))
        .filter(|&(d, _)| d <= 3)
        .collect();
    near.sort_unstable();
    near
}

/// (distance, number) of what `segment`'s query of `q` finds.
fn found(segment: &Segment<u64>, q: u64) -> Vec<(u32, u32)> {
    segment
        .query(q)
        .iter()
        .map(|n| (n.distance, n.id))
        .collect()
}

#[test]
fn a_segment_written_as_made_answers_as_brute_force() {
    // Numbers past 16 bits, names read from an iterator made on the fly,
    // one table at a time.
    let mut rng = Rng(23);
    let fps: Vec<u64> = planted(70_000, 3, 64, &mut rng)
        .iter()
        .map(|&x| x as u64)
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.ndx");
    let plan = TablePlan::new(Width::W64, 3, 5).unwrap();
    let names = (0..fps.len()).map(|i| format!("d{i}"));
    Segment::write(&path, plan, &fps, names).unwrap();
    let segment = Segment::<u64>::open(&path).unwrap();
    assert_eq!(segment.fingerprints(), &fps[..]);
    for _ in 0..300 {
        let q = fps[rng.below(fps.len() as u64) as usize] ^ 1 << rng.below(64);
        let (found, expected) = (found(&segment, q), within_3(&fps, q));
        assert_eq!(found, expected);
        for &(_, id) in &found {
            assert_eq!(segment.name(id), Some(format!("d{id}").as_str()));
        }
    }
}

#[test]
fn a_crowd_near_one_fingerprint_is_found_whole() {
    // Hundreds of fingerprints within 2 bits of one: more candidates than
    // a query holds before checking, so most are checked as they come.
    let crowd = 0x0123_4567_89ab_cdefu64;
    let fps: Vec<u64> = (0..300)
        .map(|i| crowd ^ 1 << (i % 64) ^ 1 << (i / 64))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.ndx");
    let plan = TablePlan::pigeonhole(Width::W64, 3).unwrap();
    Segment::write(&path, plan, &fps, names(fps.len())).unwrap();
    let segment = Segment::<u64>::open(&path).unwrap();
    for q in [crowd, crowd ^ 1 << 63, !crowd] {
        let (found, expected) = (found(&segment, q), within_3(&fps, q));
        assert_eq!(found, expected, "query {q:#x}");
    }
}
