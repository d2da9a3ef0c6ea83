//! Grouping by connected components: every chain of verified pairs is one
//! group, kept by its first unit in keep order.
//!
//! Greedy grouping runs first: each unit it drops is verified near the unit
//! it keeps, so its groups lie inside components, and what is left is to
//! join groups. Then, in each table of a join, the units of a run of equal
//! keys are gathered by group, and only units of different groups are
//! compared, two groups at a time until one pair of them passes
//! verification: a run of templated pages already in one group costs a
//! sort, and pairs between units already linked, through any chain, are
//! never compared. Groups are joined in a union-find that all cores share.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};

use neardup_index::{Bits, for_each_run};
use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::greedy::{Grouped, Search, greedy, join_plan};
use crate::grouping::{Fate, PackedFate};
use crate::prefix_filter::{Prefix, PrefixIndex};
use crate::progress::Progress;

/// The fates of the units whose fingerprints are `bits` (numbered in keep
/// order) when groups are connected components.
pub(crate) fn linked<B: Bits>(
    bits: &[B],
    rule: &Search,
    progress: &dyn Progress,
) -> Result<Grouped> {
    let n = bits.len();
    let first = greedy(bits, rule, progress)?;
    let groups = Groups {
        parent: first
            .fates
            .iter()
            .enumerate()
            .map(|(u, &f)| AtomicU32::new(Fate::from(f).duplicate_of().unwrap_or(u as u32)))
            .collect(),
    };
    let candidates = AtomicU64::new(first.candidates);
    let by_distance: Vec<AtomicU64> = first
        .pairs_by_distance
        .iter()
        .map(|&c| AtomicU64::new(c))
        .collect();
    let stop = AtomicBool::new(false);
    let linked_in = |members: &mut dyn Iterator<Item = u32>,
                     within: &dyn Fn(u32, u32) -> Option<u32>| {
        if stop.load(Ordering::Relaxed) || progress.cancelled() {
            stop.store(true, Ordering::Relaxed);
            return;
        }
        let met = join_in_run(members, within, rule, &groups, &by_distance);
        candidates.fetch_add(met, Ordering::Relaxed);
    };
    // The search by fingerprint, among the units it holds.
    let searched: Vec<u32> = (0..n as u32).filter(|&u| rule.searched(u)).collect();
    let searched_bits: Vec<B> = searched.iter().map(|&u| bits[u as usize]).collect();
    let plan = join_plan(B::WIDTH, rule.k, searched.len())?;
    for_each_run(&plan, &searched_bits, |run| {
        let within = |a: u32, b: u32| {
            let (fa, fb) = (bits[a as usize], bits[b as usize]);
            let distance = fa.distance(fb);
            (distance <= rule.k && run.first_met_here(fa, fb)).then_some(distance)
        };
        linked_in(
            &mut run.ids().iter().map(|&id| searched[id as usize]),
            &within,
        );
    })?;
    if let Some(short) = rule.short {
        // Pairs of units the prefix filter holds, by its lists; those the
        // search by fingerprint met are not compared again.
        let prefixes: Vec<Option<Prefix>> = (0..n as u32)
            .into_par_iter()
            .map(|u| short.prefix(u))
            .collect();
        let mut index = PrefixIndex::default();
        for (u, prefix) in prefixes.iter().enumerate() {
            if let Some(prefix) = prefix {
                let keys: Vec<u64> = prefix.keys.iter().map(|&(k, _)| k).collect();
                index.insert(u as u32, prefix.len, &keys);
            }
        }
        index.lists().par_iter().for_each(|(key, list)| {
            let within = |a: u32, b: u32| {
                let (Some(pa), Some(pb)) = (&prefixes[a as usize], &prefixes[b as usize]) else {
                    return None;
                };
                let distance = bits[a as usize].distance(bits[b as usize]);
                let first_here = first_common(&pa.keys, &pb.keys) == Some(*key);
                let met = distance <= rule.k && rule.searched(a) && rule.searched(b);
                // Under any common key (the first by the top 32 bits may
                // be two elements that share them), by its ranks.
                let may_pass = || {
                    pa.keys.iter().any(|&(ka, ra)| {
                        pb.keys.iter().any(|&(kb, rb)| {
                            top(ka) == top(kb) && short.filter.may_pass(pa.at(ra), pb.at(rb))
                        })
                    })
                };
                (!met && short.pairs(a, b) && first_here && may_pass()).then_some(distance)
            };
            linked_in(&mut list.iter().copied(), &within);
        });
    }
    if stop.load(Ordering::Relaxed) {
        return Err(Error::Cancelled);
    }
    let fates = (0..n as u32)
        .map(|u| {
            let of = groups.root(u);
            if of == u {
                PackedFate::from(Fate::Kept)
            } else {
                let distance = bits[u as usize].distance(bits[of as usize]);
                Fate::Duplicate { of, distance }.into()
            }
        })
        .collect();
    Ok(Grouped {
        fates,
        candidates: candidates.into_inner(),
        pairs_by_distance: by_distance.into_iter().map(AtomicU64::into_inner).collect(),
        similarity: Vec::new(),
    })
}

/// Joins the groups of a run's units that have a verified pair, a pair
/// being compared when `within` gives its distance; returns the pairs
/// compared.
fn join_in_run(
    units: &mut dyn Iterator<Item = u32>,
    within: &dyn Fn(u32, u32) -> Option<u32>,
    rule: &Search,
    groups: &Groups,
    by_distance: &[AtomicU64],
) -> u64 {
    // The run's units by group.
    let mut members: Vec<(u32, u32)> = units
        .filter(|&u| !(rule.excluded)(u))
        .map(|u| (groups.root(u), u))
        .collect();
    members.sort_unstable();
    let by_group: Vec<&[(u32, u32)]> = members.chunk_by(|x, y| x.0 == y.0).collect();
    let mut met = 0;
    for (i, one) in by_group.iter().enumerate() {
        for other in &by_group[i + 1..] {
            'groups: for &(_, x) in *one {
                if groups.root(x) == groups.root(other[0].1) {
                    break 'groups;
                }
                for &(_, y) in *other {
                    let (a, b) = (x.min(y), x.max(y));
                    let Some(distance) = within(a, b) else {
                        continue;
                    };
                    met += 1;
                    if rule.verify.is_none_or(|v| v(a, b).is_some()) {
                        // Counted only if this pair joined them, not a pair
                        // another thread verified at the same time.
                        if groups.join(a, b)
                            && let Some(count) = by_distance.get(distance as usize)
                        {
                            count.fetch_add(1, Ordering::Relaxed);
                        }
                        break 'groups;
                    }
                }
            }
        }
    }
    met
}

/// The first key of prefix `a` (in the filter's order) that prefix `b`
/// has too, as the 32 bits a [`PrefixIndex`] list is keyed by.
fn first_common(a: &[(u64, u32)], b: &[(u64, u32)]) -> Option<u32> {
    a.iter()
        .map(|&(k, _)| top(k))
        .find(|&x| b.iter().any(|&(k, _)| top(k) == x))
}

/// A key's top 32 bits, by which the prefix filter's lists are kept.
fn top(key: u64) -> u32 {
    (key >> 32) as u32
}

/// A union-find over units that threads share: each group's root is its
/// smallest unit, the first in keep order.
struct Groups {
    parent: Vec<AtomicU32>,
}

impl Groups {
    fn root(&self, mut x: u32) -> u32 {
        loop {
            let up = self.parent[x as usize].load(Ordering::Relaxed);
            if up == x {
                return x;
            }
            // Halving the path: a unit only ever points closer to its root.
            let upper = self.parent[up as usize].load(Ordering::Relaxed);
            let _ = self.parent[x as usize].compare_exchange(
                up,
                upper,
                Ordering::Relaxed,
                Ordering::Relaxed,
            );
            x = upper;
        }
    }

    /// Joins the groups of `a` and `b`; whether they were two groups.
    fn join(&self, a: u32, b: u32) -> bool {
        loop {
            let (ra, rb) = (self.root(a), self.root(b));
            if ra == rb {
                return false;
            }
            let (low, high) = (ra.min(rb), ra.max(rb));
            // Only a root is linked, and only while it is one.
            if self.parent[high as usize]
                .compare_exchange(high, low, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
            {
                return true;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use neardup_index::{Pair, brute_force_pairs};
    use proptest::prelude::*;

    use super::*;
    use crate::greedy::Short;
    use crate::grouping::components;
    use crate::prefix_filter::{ElementCounts, PrefixFilter, family_sketches};
    use crate::progress::Silent;
    use crate::verify::Verification;

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
            let members: Vec<bool> = (0..n).map(|u| short[u] || (u as u32 ^ seed) % 5 == 2).collect();
            let excluded = |u: u32| (u ^ seed) % 53 == 7;
            let sketches = family_sketches(n, seed);
            let verification = Verification::Jaccard(0.7);
            let counts = ElementCounts::new();
            for (s, _) in sketches.iter().zip(&members).filter(|(_, m)| **m) {
                counts.add(s);
            }
            let filter = PrefixFilter::new(verification, counts);
            let verify = |a: u32, b: u32| {
                verification
                    .passed(&sketches[a as usize], &sketches[b as usize])
                    .map(|s| s as f32)
            };
            let spill = tempfile::tempdir().unwrap();
            let rule = Search {
                k: 2,
                short: Some(Short {
                    members: &members,
                    short: &short,
                    filter: &filter,
                    sketches: &sketches,
                    spill: spill.path(),
                    // The join's sorts spill: a few hundred records each.
                    memory: 4096,
                }),
                excluded: &excluded,
                verify: Some(&verify),
                kept_bytes: crate::greedy::KEPT_BYTES_LEAST,
                near: None,
            earlier: None,
            };
            let pairs: Vec<Pair> = brute_force_pairs(64, &bits)
                .into_iter()
                .filter(|p| {
                    let searched = !short[p.a as usize] && !short[p.b as usize];
                    let held = members[p.a as usize] && members[p.b as usize];
                    (searched && p.distance <= 2)
                        || (held && (short[p.a as usize] || short[p.b as usize]))
                })
                .filter(|p| !excluded(p.a) && !excluded(p.b) && verify(p.a, p.b).is_some())
                .collect();
            let mut expected = vec![Fate::Kept; n];
            for group in components(n, &pairs) {
                for &u in &group[1..] {
                    let distance = bits[u as usize].distance(bits[group[0] as usize]);
                    expected[u as usize] = Fate::Duplicate { of: group[0], distance };
                }
            }
            let grouped = linked(&bits, &rule, &Silent).unwrap();
            let fates: Vec<Fate> = grouped.fates.iter().map(|&f| f.into()).collect();
            prop_assert_eq!(fates, expected);
        }
    }

    #[test]
    fn a_dense_cluster_compares_few_pairs() {
        let centre = 0x0123_4567_89ab_cdefu64;
        let bits: Vec<u64> = (0..20_000u64).map(|i| centre ^ 1 << (i % 64)).collect();
        let rule = Search {
            k: 6,
            short: None,
            excluded: &|_| false,
            verify: Some(&|_, _| Some(1.0)),
            kept_bytes: crate::greedy::KEPT_BYTES_LEAST,
            near: None,
            earlier: None,
        };
        let grouped = linked(&bits, &rule, &Silent).unwrap();
        assert_eq!(
            grouped
                .fates
                .iter()
                .filter(|&&f| Fate::from(f) == Fate::Kept)
                .count(),
            1
        );
        assert!(
            grouped.candidates < 3 * bits.len() as u64,
            "{}",
            grouped.candidates
        );
    }
}
