//! The online index answers exactly what brute force answers, through
//! inserts, bulk builds, removals and batches.

use neardup_core::Width;
use neardup_index::{Bits, Neighbour, OnlineIndex, TablePlan};
use proptest::prelude::*;

use crate::join::{Rng, planted};

fn brute<B: Bits>(k: u32, stored: &[(u32, B)], query: B) -> Vec<Neighbour> {
    let mut out: Vec<Neighbour> = stored
        .iter()
        .map(|&(id, fp)| Neighbour {
            distance: fp.distance(query),
            id,
        })
        .filter(|m| m.distance <= k)
        .collect();
    out.sort_unstable();
    out
}

fn check<B: Bits>(plan: TablePlan, fps: &[B], rng: &mut Rng) {
    let k = plan.k();
    let built = OnlineIndex::build(plan.clone(), fps).unwrap();
    let mut index = OnlineIndex::new(plan.clone()).unwrap();
    for &fp in fps {
        index.insert(fp).unwrap();
    }
    // Room made before some of the inserts (more than they need, or less).
    let mut reserved = OnlineIndex::new(plan).unwrap();
    let at = rng.below(fps.len() as u64 + 1) as usize;
    reserved.reserve(rng.below(2 * fps.len() as u64) as usize);
    for (i, &fp) in fps.iter().enumerate() {
        if i == at {
            reserved.reserve(fps.len() - at);
        }
        reserved.insert(fp).unwrap();
    }
    let mut stored: Vec<(u32, B)> = fps
        .iter()
        .enumerate()
        .map(|(i, &f)| (i as u32, f))
        .collect();
    // Queries: every stored fingerprint (so its planted neighbours), and
    // the same after removing a third of them.
    let batch = index.query_batch(fps);
    for (q, found) in fps.iter().zip(&batch) {
        let expected = brute(k, &stored, *q);
        assert_eq!(found, &expected);
        assert_eq!(built.query(*q), expected);
        assert_eq!(reserved.query(*q), expected);
    }
    for id in 0..fps.len() as u32 {
        if rng.below(3) == 0 {
            assert!(index.remove(id));
            assert!(!index.remove(id));
            assert!(reserved.remove(id));
            stored.retain(|&(i, _)| i != id);
        }
    }
    assert_eq!(index.len(), stored.len());
    // Room made after removals, for numbers past those given so far.
    reserved.reserve(rng.below(200) as usize);
    for &q in fps {
        assert_eq!(index.query(q), brute(k, &stored, q));
        assert_eq!(reserved.query(q), brute(k, &stored, q));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    #[test]
    fn queries_equal_brute_force(seed in any::<u64>(), k in 0u32..=8, extra_blocks in 0u32..3) {
        let mut rng = Rng(seed);
        for width in [Width::W64, Width::W128] {
            let Ok(plan) = TablePlan::new(width, k, k + 1 + extra_blocks) else {
                continue;
            };
            let fps = planted(120, k, width.bits(), &mut rng);
            match width {
                Width::W64 => check(plan, &fps.iter().map(|&x| x as u64).collect::<Vec<_>>(), &mut rng),
                _ => check(plan, &fps, &mut rng),
            }
        }
    }
}

#[test]
fn grows_and_reports_memory() {
    let plan = TablePlan::new(Width::W64, 3, 5).unwrap();
    let mut index = OnlineIndex::new(plan).unwrap();
    let mut rng = Rng(3);
    // Past 65,534 numbers, the first width of a slot's number field.
    let fps: Vec<u64> = (0..70_000).map(|_| rng.next()).collect();
    for &fp in &fps {
        index.insert(fp).unwrap();
    }
    assert_eq!(index.len(), 70_000);
    for (id, &fp) in fps.iter().enumerate().step_by(97) {
        assert!(index.query(fp).contains(&Neighbour {
            distance: 0,
            id: id as u32
        }));
    }
    let per_fp = index.memory_bytes() as f64 / index.len() as f64;
    assert!(per_fp > 8.0 && per_fp < 400.0, "{per_fp}");
    // With the room made first, the same inserts regrow nothing.
    let mut reserved = OnlineIndex::new(TablePlan::new(Width::W64, 3, 5).unwrap()).unwrap();
    reserved.reserve(fps.len());
    let before = reserved.memory_bytes();
    for &fp in &fps {
        reserved.insert(fp).unwrap();
    }
    assert_eq!(reserved.memory_bytes(), before);
    for (id, &fp) in fps.iter().enumerate().step_by(97) {
        assert_eq!(reserved.query(fp), index.query(fp));
        assert!(reserved.query(fp).iter().any(|m| m.id == id as u32));
    }
    assert!(OnlineIndex::<u128>::new(TablePlan::pigeonhole(Width::W64, 3).unwrap()).is_err());
}

/// Found by the property test: check bits let a fingerprint of another key
/// through in one table, and it was reported there and again in the table
/// whose key it shares.
#[test]
fn a_match_through_check_bits_is_reported_once() {
    let (seed, k, extra_blocks) = (12_140_314_585_126_102_339u64, 6, 2);
    let mut rng = Rng(seed);
    for width in [Width::W64, Width::W128] {
        let plan = TablePlan::new(width, k, k + 1 + extra_blocks).unwrap();
        let fps = planted(120, k, width.bits(), &mut rng);
        match width {
            Width::W64 => check(
                plan,
                &fps.iter().map(|&x| x as u64).collect::<Vec<_>>(),
                &mut rng,
            ),
            _ => check(plan, &fps, &mut rng),
        }
    }
}

/// A query holds its first candidates to check them together; a dense
/// cluster brings hundreds, and those past the held ones are checked as
/// they come: the answers are brute force's all the same.
#[test]
fn a_dense_cluster_is_answered_whole() {
    let mut rng = Rng(7);
    let base = rng.next();
    // Copies of one fingerprint and ones a bit from it.
    let mut fps: Vec<u64> = (0..300)
        .map(|i| match i % 3 {
            0 => base,
            _ => base ^ 1 << (i % 64),
        })
        .collect();
    fps.extend((0..200).map(|_| rng.next()));
    check(
        TablePlan::pigeonhole(Width::W64, 3).unwrap(),
        &fps,
        &mut rng,
    );
}

/// A small index is made on the calling thread, never waiting for rayon's:
/// a store's writer makes one for each large group commit, and handing it
/// to the pool held every write behind pool threads that were asleep or
/// busy. Here every pool thread is held while a small index is made.
#[test]
fn a_small_index_is_made_without_the_pools_threads() {
    use std::sync::{Arc, Barrier, mpsc};
    use std::time::Duration;

    let threads = rayon::current_num_threads();
    let release = Arc::new(Barrier::new(threads + 1));
    let (started, holding) = mpsc::channel();
    for _ in 0..threads {
        let (release, started) = (release.clone(), started.clone());
        rayon::spawn(move || {
            let _ = started.send(());
            release.wait();
        });
    }
    for _ in 0..threads {
        holding.recv().unwrap();
    }
    let (done, made) = mpsc::channel();
    std::thread::spawn(move || {
        let plan = TablePlan::pigeonhole(Width::W64, 3).unwrap();
        let mut rng = Rng(11);
        let fps: Vec<u64> = (0..1000).map(|_| rng.next()).collect();
        let mut index = OnlineIndex::<u64>::new(plan.clone()).unwrap();
        index.reserve(fps.len());
        for &fp in &fps {
            index.insert(fp).unwrap();
        }
        let built = OnlineIndex::build(plan, &fps).unwrap();
        let _ = done.send((index.len(), built.query(fps[7]).len()));
    });
    let answer = made.recv_timeout(Duration::from_secs(20));
    release.wait();
    let (len, found) = answer.expect("a small index waited for rayon's threads");
    assert_eq!(len, 1000);
    assert!(found >= 1);
}
