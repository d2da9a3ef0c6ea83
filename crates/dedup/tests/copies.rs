//! Taking exact copies as one unit keeps exactly the documents that
//! grouping every document on its own keeps, and drops each other document
//! for a kept one it is truly near.

use neardup_dedup::{Copies, Fate, keep_first};
use neardup_index::Pair;
use proptest::prelude::*;

/// Every pair of `fingerprints` within `k` bits, by brute force.
fn pairs(fingerprints: &[u128], k: u32) -> Vec<Pair> {
    let mut out = Vec::new();
    for a in 0..fingerprints.len() {
        for b in a + 1..fingerprints.len() {
            let distance = (fingerprints[a] ^ fingerprints[b]).count_ones();
            if distance <= k {
                out.push(Pair {
                    a: a as u32,
                    b: b as u32,
                    distance,
                });
            }
        }
    }
    out
}

proptest! {
    #[test]
    fn units_keep_what_documents_keep(
        // Few distinct fingerprints and texts, so that copies are common.
        docs in prop::collection::vec((0u8..12, 0u64..3), 1..60),
        seed in any::<u64>(),
        k in 0u32..4,
    ) {
        // Fingerprints a few bits apart: bit patterns of a small number.
        let fingerprints: Vec<u128> = docs.iter().map(|&(f, _)| (f as u128) * 0x0101).collect();
        let hashes: Vec<u64> = docs.iter().map(|&(f, t)| (f as u64) << 8 | t).collect();
        let n = docs.len();
        let mut order: Vec<u32> = (0..n as u32).collect();
        // A shuffled order, as --keep longest or max:FIELD would give.
        let mut state = seed;
        for i in (1..n).rev() {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            order.swap(i, (state >> 33) as usize % (i + 1));
        }
        let by_document = keep_first(n, &order, &pairs(&fingerprints, k));

        let copies = Copies::new(|d| fingerprints[d as usize], &hashes, &order);
        let unit_fps: Vec<u128> = (0..copies.units() as u32)
            .map(|u| fingerprints[copies.representative(u) as usize])
            .collect();
        let unit_order: Vec<u32> = (0..copies.units() as u32).collect();
        let unit_fates = keep_first(copies.units(), &unit_order, &pairs(&unit_fps, k));
        let by_unit = copies.expand(&unit_fates);

        for d in 0..n {
            prop_assert_eq!(by_unit[d] == Fate::Kept, by_document[d] == Fate::Kept, "doc {}", d);
            if let Fate::Duplicate { of, distance } = by_unit[d] {
                prop_assert_eq!(by_unit[of as usize], Fate::Kept);
                prop_assert_eq!(distance, (fingerprints[d] ^ fingerprints[of as usize]).count_ones());
                prop_assert!(distance <= k);
            }
        }
    }
}
