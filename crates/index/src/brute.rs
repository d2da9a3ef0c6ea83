//! Brute force: every pair compared. The oracle of the tests and the
//! baseline of the benchmarks.

use crate::bits::Bits;
use crate::join::Pair;

/// Every pair of `fingerprints` within `k` bits, sorted by `(a, b)`, by
/// comparing all `n(n − 1)/2` pairs.
///
/// ```
/// use neardup_index::brute_force_pairs;
///
/// let pairs = brute_force_pairs(1, &[0b000u64, 0b001, 0b011]);
/// assert_eq!(pairs.len(), 2);
/// ```
pub fn brute_force_pairs<B: Bits>(k: u32, fingerprints: &[B]) -> Vec<Pair> {
    let mut pairs = Vec::new();
    for (a, &fa) in fingerprints.iter().enumerate() {
        for (b, &fb) in fingerprints.iter().enumerate().skip(a + 1) {
            let distance = fa.distance(fb);
            if distance <= k {
                pairs.push(Pair {
                    a: a as u32,
                    b: b as u32,
                    distance,
                });
            }
        }
    }
    pairs
}

/// Every pair of a query and a base fingerprint within `k` bits, sorted by
/// `(a, b)` (query, base).
///
/// ```
/// use neardup_index::brute_force_cross;
///
/// let pairs = brute_force_cross(0, &[7u64], &[7, 8, 7]);
/// assert_eq!(pairs.iter().map(|p| p.b).collect::<Vec<_>>(), [0, 2]);
/// ```
pub fn brute_force_cross<B: Bits>(k: u32, queries: &[B], base: &[B]) -> Vec<Pair> {
    let mut pairs = Vec::new();
    for (a, &q) in queries.iter().enumerate() {
        for (b, &f) in base.iter().enumerate() {
            let distance = q.distance(f);
            if distance <= k {
                pairs.push(Pair {
                    a: a as u32,
                    b: b as u32,
                    distance,
                });
            }
        }
    }
    pairs
}
