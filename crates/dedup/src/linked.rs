//! Grouping by connected components: every chain of verified pairs is one
//! group, kept by its first unit in keep order.
//!
//! Pairs are verified only while they would join two groups: once two units
//! are linked, through any chain, a pair between them changes nothing and
//! is not compared.

use neardup_index::{Bits, Pair, TablePlan, self_join_where};
use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::greedy::{Grouped, Rule};
use crate::grouping::Fate;
use crate::progress::Progress;

/// Pairs verified on all cores at a time.
const CHUNK: usize = 1 << 16;

/// The fates of the units whose fingerprints are `bits` (numbered in keep
/// order) when groups are connected components.
pub(crate) fn linked<B: Bits>(bits: &[B], rule: &Rule, progress: &dyn Progress) -> Result<Grouped> {
    let n = bits.len();
    let width = B::WIDTH;
    let plan = |k: u32, n: usize| -> Result<TablePlan> {
        Ok(TablePlan::choose_for_join(width, k, n.max(1) as f64)?.plan(width, k)?)
    };
    let excluded = rule.excluded;
    let mut pairs = self_join_where(&plan(rule.k, n)?, bits, |p| {
        !excluded(p.a) && !excluded(p.b)
    })?;
    if let Some((k_short, is_short)) = rule.short {
        let units: Vec<u32> = (0..n as u32).filter(|&u| is_short[u as usize]).collect();
        let short_bits: Vec<B> = units.iter().map(|&u| bits[u as usize]).collect();
        let as_units = |p: &Pair| Pair {
            a: units[p.a as usize],
            b: units[p.b as usize],
            distance: p.distance,
        };
        // Pairs of short units beyond k; those within were found above.
        let found = self_join_where(&plan(k_short, units.len())?, &short_bits, |p| {
            let p = as_units(p);
            p.distance > rule.k && !excluded(p.a) && !excluded(p.b)
        })?;
        pairs.extend(found.iter().map(as_units));
    }
    let candidates = pairs.len() as u64;
    let mut parent: Vec<u32> = (0..n as u32).collect();
    let max_k = rule.short.map_or(rule.k, |(k, _)| k.max(rule.k));
    let mut pairs_by_distance = vec![0u64; max_k as usize + 1];
    for chunk in pairs.chunks(CHUNK) {
        if progress.cancelled() {
            return Err(Error::Cancelled);
        }
        let open: Vec<Pair> = chunk
            .iter()
            .copied()
            .filter(|p| root(&mut parent, p.a) != root(&mut parent, p.b))
            .collect();
        let passed: Vec<Pair> = match rule.verify {
            Some(verify) => open.into_par_iter().filter(|p| verify(p.a, p.b)).collect(),
            None => open,
        };
        for p in passed {
            let (ra, rb) = (root(&mut parent, p.a), root(&mut parent, p.b));
            if ra != rb {
                // The smaller number becomes the root: roots are first members.
                parent[ra.max(rb) as usize] = ra.min(rb);
                if let Some(count) = pairs_by_distance.get_mut(p.distance as usize) {
                    *count += 1;
                }
            }
        }
    }
    let fates = (0..n as u32)
        .map(|u| {
            let of = root(&mut parent, u);
            if of == u {
                Fate::Kept
            } else {
                let distance = bits[u as usize].distance(bits[of as usize]);
                Fate::Duplicate { of, distance }
            }
        })
        .collect();
    Ok(Grouped {
        fates,
        candidates,
        pairs_by_distance,
    })
}

fn root(parent: &mut [u32], mut x: u32) -> u32 {
    while parent[x as usize] != x {
        let up = parent[parent[x as usize] as usize];
        parent[x as usize] = up;
        x = up;
    }
    x
}

#[cfg(test)]
mod tests {
    use neardup_index::brute_force_pairs;
    use proptest::prelude::*;

    use super::*;
    use crate::grouping::components;
    use crate::progress::Silent;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(32))]

        /// Components over the verified pairs, whichever pairs were skipped
        /// as already linked.
        #[test]
        fn linked_equals_components_of_all_verified_pairs(
            bits in prop::collection::vec(0u64..4096, 2..300),
            seed in any::<u32>(),
        ) {
            let n = bits.len();
            let short: Vec<bool> = (0..n).map(|u| (u as u32 ^ seed) % 3 == 1).collect();
            let excluded = |u: u32| (u ^ seed) % 53 == 7;
            let verify = |a: u32, b: u32| !(a * 7 + b).wrapping_add(seed).is_multiple_of(4);
            let rule = Rule { k: 2, short: Some((4, &short)), excluded: &excluded, verify: Some(&verify) };
            let pairs: Vec<Pair> = brute_force_pairs(4, &bits)
                .into_iter()
                .filter(|p| p.distance <= 2 || (short[p.a as usize] && short[p.b as usize]))
                .filter(|p| !excluded(p.a) && !excluded(p.b) && verify(p.a, p.b))
                .collect();
            let mut expected = vec![Fate::Kept; n];
            for group in components(n, &pairs) {
                for &u in &group[1..] {
                    let distance = bits[u as usize].distance(bits[group[0] as usize]);
                    expected[u as usize] = Fate::Duplicate { of: group[0], distance };
                }
            }
            let grouped = linked(&bits, &rule, &Silent).unwrap();
            prop_assert_eq!(grouped.fates, expected);
        }
    }
}
