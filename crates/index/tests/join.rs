//! The joins find exactly the pairs brute force finds: random fingerprints
//! with neighbours planted at every distance from 0 to k + 1, for many
//! plans, both widths and k from 0 to 8.

use neardup_core::Width;
use std::sync::Mutex;

use neardup_index::{
    Bits, Pair, SpillSort, TablePlan, brute_force_cross, brute_force_pairs, cross_join,
    cross_join_each, for_each_run, self_join, self_join_each, self_join_where, with_neighbours,
};
use proptest::prelude::*;

/// SplitMix64, seeded by proptest.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Flips `d` distinct random bits of `x`.
fn flip(x: u128, d: u32, width: u32, rng: &mut Rng) -> u128 {
    let mut bits = Vec::new();
    while bits.len() < d as usize {
        let b = rng.below(u64::from(width)) as u32;
        if !bits.contains(&b) {
            bits.push(b);
        }
    }
    bits.iter().fold(x, |x, &b| x ^ 1u128 << b)
}

/// `n` random fingerprints, then for each distance from 0 to `k + 1` a few
/// copies of earlier ones with that many bits flipped.
pub fn planted(n: usize, k: u32, width: u32, rng: &mut Rng) -> Vec<u128> {
    let mask = if width == 128 {
        u128::MAX
    } else {
        u128::from(u64::MAX)
    };
    let mut fps: Vec<u128> = (0..n)
        .map(|_| (u128::from(rng.next()) << 64 | u128::from(rng.next())) & mask)
        .collect();
    for d in 0..=k + 1 {
        for _ in 0..4 {
            let of = fps[rng.below(fps.len() as u64) as usize];
            fps.push(flip(of, d, width, rng));
        }
    }
    // Shuffle, so that neighbours are not next to each other.
    for i in (1..fps.len()).rev() {
        fps.swap(i, rng.below(i as u64 + 1) as usize);
    }
    fps
}

/// The pairs a streaming join hands over, sorted past a small budget.
fn streamed(
    join: impl FnOnce(&(dyn Fn(&[Pair]) -> neardup_index::Result<()> + Sync)),
) -> Vec<Pair> {
    let dir = tempfile::tempdir().unwrap();
    let sort = Mutex::new(SpillSort::new(1000, dir.path()));
    join(&|pairs| sort.lock().unwrap().push(pairs));
    let sorted = sort.into_inner().unwrap().finish().unwrap();
    sorted.collect::<neardup_index::Result<_>>().unwrap()
}

fn check<B: Bits>(plan: &TablePlan, fps: &[B]) {
    let expected = brute_force_pairs(plan.k(), fps);
    assert_eq!(self_join(plan, fps).unwrap(), expected, "{plan:?}");
    let each = streamed(|sink| self_join_each(plan, fps, sink).unwrap());
    assert_eq!(each, expected, "{plan:?}");
    // A slice of the pairs, as dedup takes them when they are many.
    let slice = |p: &Pair| p.b % 3 == 1 && p.a.is_multiple_of(2);
    let sliced: Vec<Pair> = expected.iter().copied().filter(slice).collect();
    assert_eq!(
        self_join_where(plan, fps, slice).unwrap(),
        sliced,
        "{plan:?}"
    );
    // Which have a neighbour: those in some pair.
    let mut paired = vec![false; fps.len()];
    for p in &expected {
        paired[p.a as usize] = true;
        paired[p.b as usize] = true;
    }
    assert_eq!(with_neighbours(plan, fps).unwrap(), paired, "{plan:?}");
    // The runs hold every pair, each first met in one table.
    let from_runs = std::sync::Mutex::new(Vec::new());
    for_each_run(plan, fps, |run| {
        let ids = run.ids();
        for (i, &x) in ids.iter().enumerate() {
            for &y in &ids[i + 1..] {
                let (a, b) = (x.min(y), x.max(y));
                let (fa, fb) = (fps[a as usize], fps[b as usize]);
                let distance = fa.distance(fb);
                if distance <= plan.k() && run.first_met_here(fa, fb) {
                    from_runs.lock().unwrap().push(Pair { a, b, distance });
                }
            }
        }
    })
    .unwrap();
    let mut from_runs = from_runs.into_inner().unwrap();
    from_runs.sort();
    assert_eq!(from_runs, expected, "{plan:?}");
    let (queries, base) = fps.split_at(fps.len() / 3);
    let expected = brute_force_cross(plan.k(), queries, base);
    assert_eq!(
        cross_join(plan, queries, base).unwrap(),
        expected,
        "{plan:?}"
    );
    let each = streamed(|sink| cross_join_each(plan, queries, base, sink).unwrap());
    assert_eq!(each, expected, "{plan:?}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn joins_equal_brute_force(seed in any::<u64>(), k in 0u32..=8, extra_blocks in 0u32..3) {
        let mut rng = Rng(seed);
        for width in [Width::W64, Width::W128] {
            let Ok(plan) = TablePlan::new(width, k, k + 1 + extra_blocks) else {
                continue;
            };
            let fps = planted(150, k, width.bits(), &mut rng);
            match width {
                Width::W64 => check(&plan, &fps.iter().map(|&x| x as u64).collect::<Vec<_>>()),
                _ => check(&plan, &fps),
            }
        }
    }
}

#[test]
fn every_planted_pair_is_found_at_every_distance() {
    let mut rng = Rng(7);
    for k in 0..=8 {
        let plan = TablePlan::pigeonhole(Width::W64, k).unwrap();
        let fps: Vec<u64> = planted(300, k, 64, &mut rng)
            .iter()
            .map(|&x| x as u64)
            .collect();
        let pairs = self_join(&plan, &fps).unwrap();
        assert_eq!(pairs, brute_force_pairs(k, &fps));
        for d in 0..=k {
            assert!(
                pairs.iter().any(|p| p.distance == d),
                "k = {k}: none at {d}"
            );
        }
        assert!(pairs.iter().all(|p| p.distance <= k));
    }
}

#[test]
fn identical_fingerprints_pair_up() {
    let plan = TablePlan::new(Width::W64, 3, 6).unwrap();
    let fps = vec![42u64; 5];
    let pairs = self_join(&plan, &fps).unwrap();
    assert_eq!(pairs.len(), 10);
    assert!(pairs.iter().all(|p| p.distance == 0 && p.a < p.b));
}

#[test]
fn a_streaming_join_hands_over_pairs_in_chunks() {
    // 500 identical fingerprints: 124,750 pairs in one run, more than a
    // chunk; the sink sees them in several calls.
    let plan = TablePlan::pigeonhole(Width::W64, 3).unwrap();
    let fps = vec![7u64; 500];
    let calls = Mutex::new(0usize);
    let pairs = streamed(|sink| {
        self_join_each(&plan, &fps, |p| {
            *calls.lock().unwrap() += 1;
            sink(p)
        })
        .unwrap()
    });
    assert_eq!(pairs, brute_force_pairs(3, &fps));
    assert!(*calls.lock().unwrap() > 1);
    // A sink's error stops the join, and is the join's.
    let err = self_join_each(&plan, &fps, |_| Err(neardup_index::Error::Stopped)).unwrap_err();
    assert!(matches!(err, neardup_index::Error::Stopped), "{err}");
}

#[test]
fn widths_must_match_the_plan() {
    let plan = TablePlan::pigeonhole(Width::W128, 3).unwrap();
    assert!(self_join(&plan, &[1u64, 2]).is_err());
    assert!(self_join(&plan, &[] as &[u128]).unwrap().is_empty());
}
