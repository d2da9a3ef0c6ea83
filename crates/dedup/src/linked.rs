//! Grouping by connected components: every chain of verified pairs is one
//! group, kept by its first unit in keep order.
//!
//! Greedy grouping runs first: each unit it drops is verified near the unit
//! it keeps, so its groups lie inside components, and what is left is to
//! join groups. When the join's pairs are few, greedy grouping had them
//! listed ([`Earlier`]), and they are read again: a pair is verified only
//! if its units are in two groups still. Otherwise, in each table of a
//! join, the units of a run of equal keys are gathered by group, and only
//! units of different groups are compared, two groups at a time until one
//! pair of them passes verification: a run of templated pages already in
//! one group costs a sort, and pairs between units already linked, through
//! any chain, are never compared.
//!
//! Pairs are judged on all cores while the groups stand still (a chunk of
//! listed pairs, a table's runs, a batch of the prefix filter's lists),
//! then the pairs that passed join groups in one order: what is compared
//! and counted is the same on any number of threads, so two runs on one
//! input give one report.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use neardup_index::{Bits, map_runs};
use rayon::prelude::*;

use crate::earlier::{Earlier, Listed};
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
    let linker = Linker {
        rule,
        progress,
        groups: &groups,
        stop: AtomicBool::new(false),
    };
    let mut counts = Counts {
        candidates: first.candidates,
        by_distance: first.pairs_by_distance,
    };
    // The search by fingerprint, among the units it holds: the join's
    // pairs read again when greedy grouping had them listed (they are few),
    // else each run of the join, its fingerprints with its units.
    match rule.earlier.map(Earlier::replay).transpose()?.flatten() {
        Some(pairs) => linker.join_listed(pairs, &mut counts)?,
        None => {
            let searched: Vec<u32> = (0..n as u32).filter(|&u| rule.searched(u)).collect();
            let searched_bits: Vec<B> = searched.iter().map(|&u| bits[u as usize]).collect();
            let plan = join_plan(B::WIDTH, rule.k, searched.len())?;
            let visit = |run: &neardup_index::Run<'_, B>| {
                let members = run
                    .ids()
                    .iter()
                    .zip(run.fingerprints())
                    .map(|(&id, &fp)| (searched[id as usize], fp));
                let judged = linker.judge_run(members, |(_, fa), (_, fb)| {
                    let distance = fa.distance(fb);
                    (distance <= rule.k && run.first_met_here(fa, fb)).then_some(distance)
                });
                // Most runs compare nothing: not kept for the table's end.
                (judged.compared > 0).then_some(judged)
            };
            map_runs(&plan, &searched_bits, visit, |_, judged| {
                counts.link(&groups, judged);
            })?;
        }
    }
    if linker.cancelled() {
        return Err(Error::Cancelled);
    }
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
        let judge = |(key, list): &(u32, Vec<u32>)| {
            let members = list.iter().map(|&u| (u, ()));
            linker.judge_run(members, |(a, ()), (b, ())| {
                // The cheap tests first: a short unit, not a pair the
                // search by fingerprint met.
                if !short.pairs(a, b) {
                    return None;
                }
                let distance = bits[a as usize].distance(bits[b as usize]);
                if distance <= rule.k && rule.searched(a) && rule.searched(b) {
                    return None;
                }
                let (Some(pa), Some(pb)) = (&prefixes[a as usize], &prefixes[b as usize]) else {
                    return None;
                };
                // Under any common key (the first by the top 32 bits may
                // be two elements that share them), by its ranks.
                let may_pass = || {
                    pa.keys.iter().any(|&(ka, ra)| {
                        pb.keys.iter().any(|&(kb, rb)| {
                            top(ka) == top(kb) && short.filter.may_pass(pa.at(ra), pb.at(rb))
                        })
                    })
                };
                (first_common(&pa.keys, &pb.keys) == Some(*key) && may_pass()).then_some(distance)
            })
        };
        for batch in index.lists().chunks(LISTS_BATCH) {
            counts.link(&groups, batch.par_iter().map(judge).collect());
        }
    }
    if linker.stop.load(Ordering::Relaxed) {
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
        candidates: counts.candidates,
        pairs_by_distance: counts.by_distance,
        similarity: Vec::new(),
    })
}

/// Pairs read again and judged at a time, on all cores.
const LISTED_CHUNK: usize = 1 << 16;

/// Lists of the prefix filter judged at a time, on all cores.
const LISTS_BATCH: usize = 1 << 12;

/// What judging a run (or a chunk of listed pairs) found while the groups
/// stood still: how many pairs it compared, and the verified pairs
/// `(a, b, distance)` that join two groups.
#[derive(Default)]
struct Judged {
    compared: u64,
    links: Vec<(u32, u32, u32)>,
}

/// What judges pairs on all cores: the rule, the groups it reads, and
/// whether the run was cancelled.
struct Linker<'a> {
    rule: &'a Search<'a>,
    progress: &'a dyn Progress,
    groups: &'a Groups,
    stop: AtomicBool,
}

/// What the summary says of the pairs: how many were compared, and how
/// many joined two groups, by distance.
struct Counts {
    candidates: u64,
    by_distance: Vec<u64>,
}

impl Counts {
    /// Joins the groups of what `judged` found, in its order, counting
    /// each pair that joined two groups by its distance.
    fn link(&mut self, groups: &Groups, judged: Vec<Judged>) {
        for Judged { compared, links } in judged {
            self.candidates += compared;
            for (a, b, distance) in links {
                if groups.join(a, b)
                    && let Some(count) = self.by_distance.get_mut(distance as usize)
                {
                    *count += 1;
                }
            }
        }
    }
}

impl Linker<'_> {
    /// Joins the groups of the pairs `[later, distance, earlier]` of
    /// `pairs` that pass verification, judged a chunk at a time on all
    /// cores; a pair whose units were in one group when its chunk began is
    /// not compared.
    ///
    /// # Errors
    ///
    /// A run of the pairs that cannot be read back.
    fn join_listed(
        &self,
        mut pairs: impl Iterator<Item = Result<Listed>>,
        counts: &mut Counts,
    ) -> Result<()> {
        let (rule, groups) = (self.rule, self.groups);
        let mut chunk: Vec<Listed> = Vec::with_capacity(LISTED_CHUNK);
        loop {
            chunk.clear();
            for record in pairs.by_ref().take(LISTED_CHUNK) {
                chunk.push(record?);
            }
            if chunk.is_empty() || self.cancelled() {
                return Ok(());
            }
            // The pairs between two groups, by the groups' roots, in the
            // order read; those of two groups are verified until one passes.
            let mut between: Vec<((u32, u32), [u32; 3])> = chunk
                .par_iter()
                .filter(|&&[b, _, a]| !(rule.excluded)(a) && !(rule.excluded)(b))
                .filter_map(|&[b, distance, a]| {
                    let (ra, rb) = (groups.root(a), groups.root(b));
                    (ra != rb).then_some(((ra.min(rb), ra.max(rb)), [a, b, distance]))
                })
                .collect();
            between.par_sort_by_key(|&(roots, _)| roots);
            let judged: Vec<Judged> = between
                .par_chunk_by(|x, y| x.0 == y.0)
                .map(|pairs| {
                    let mut judged = Judged::default();
                    for &(_, [a, b, distance]) in pairs {
                        judged.compared += 1;
                        if rule.verify.is_none_or(|v| v(a, b).is_some()) {
                            judged.links.push((a, b, distance));
                            break;
                        }
                    }
                    judged
                })
                .collect();
            counts.link(groups, judged);
        }
    }

    /// Whether the run was cancelled (and says so to the other threads).
    fn cancelled(&self) -> bool {
        if self.stop.load(Ordering::Relaxed) || self.progress.cancelled() {
            self.stop.store(true, Ordering::Relaxed);
            return true;
        }
        false
    }

    /// The verified pairs that join the groups of a run's members (units,
    /// each with what `within` reads of it), a pair being compared when
    /// `within` gives its distance (its lesser unit first). The groups are
    /// read, not joined: [`Counts::link`] joins them.
    ///
    /// The members are sorted by group, and two groups are compared until
    /// one pair of them passes.
    fn judge_run<T: Copy>(
        &self,
        members: impl Iterator<Item = (u32, T)>,
        within: impl Fn((u32, T), (u32, T)) -> Option<u32>,
    ) -> Judged {
        let mut judged = Judged::default();
        if self.cancelled() {
            return judged;
        }
        let (rule, groups) = (self.rule, self.groups);
        let mut members: Vec<(u32, u32, T)> = members
            .filter(|&(u, _)| !(rule.excluded)(u))
            .map(|(u, t)| (groups.root(u), u, t))
            .collect();
        members.sort_unstable_by_key(|&(root, u, _)| (root, u));
        let by_group: Vec<&[(u32, u32, T)]> = members.chunk_by(|x, y| x.0 == y.0).collect();
        // The groups this run linked, by their place in `by_group`: two
        // groups linked through a third are not compared.
        let mut linked: Vec<usize> = (0..by_group.len()).collect();
        for (i, one) in by_group.iter().enumerate() {
            for (j, other) in by_group.iter().enumerate().skip(i + 1) {
                let (li, lj) = (local_root(&mut linked, i), local_root(&mut linked, j));
                if li == lj {
                    continue;
                }
                'groups: for &(_, x, tx) in *one {
                    for &(_, y, ty) in *other {
                        let (a, b) = if x < y {
                            ((x, tx), (y, ty))
                        } else {
                            ((y, ty), (x, tx))
                        };
                        let Some(distance) = within(a, b) else {
                            continue;
                        };
                        judged.compared += 1;
                        let (a, b) = (a.0, b.0);
                        if rule.verify.is_none_or(|v| v(a, b).is_some()) {
                            judged.links.push((a, b, distance));
                            linked[li.max(lj)] = li.min(lj);
                            break 'groups;
                        }
                    }
                }
            }
        }
        judged
    }
}

/// The root of `x` in a union-find local to one thread, halving the path.
fn local_root(parent: &mut [usize], mut x: usize) -> usize {
    while parent[x] != x {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    x
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

/// A union-find over units that all cores read and one joins: each group's
/// root is its smallest unit, the first in keep order.
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
    use neardup_core::Width;
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
            let four = rayon::ThreadPoolBuilder::new().num_threads(4).build().unwrap();
            let grouped = four.install(|| linked(&bits, &rule, &Silent)).unwrap();
            let fates: Vec<Fate> = grouped.fates.iter().map(|&f| f.into()).collect();
            prop_assert_eq!(&fates, &expected);
            // The same when greedy grouping reads the join's lists of
            // earlier neighbours (as the job gives them when they are few),
            // spilled to sorted runs.
            let searched: Vec<u32> = (0..n as u32).filter(|&u| rule.searched(u)).collect();
            let searched_bits: Vec<u64> = searched.iter().map(|&u| bits[u as usize]).collect();
            let plan = join_plan(Width::W64, 2, searched.len()).unwrap();
            // Greedy grouping reads the lists once: a run needs its own.
            let from_lists = |threads: usize| {
                let earlier = Earlier::join(&plan, (n, &searched, &searched_bits), u64::MAX, (64, true), spill.path()).unwrap().unwrap();
                let listed = Search { near: Some(earlier.near()), earlier: Some(&earlier), ..rule };
                let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
                pool.install(|| linked(&bits, &listed, &Silent)).unwrap()
            };
            let listed = from_lists(4);
            let fates: Vec<Fate> = listed.fates.iter().map(|&f| f.into()).collect();
            prop_assert_eq!(&fates, &expected);
            // What is compared and counted does not depend on the threads.
            let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
            for (alone, many) in [
                (one.install(|| linked(&bits, &rule, &Silent)).unwrap(), grouped),
                (from_lists(1), listed),
            ] {
                prop_assert_eq!(alone.candidates, many.candidates);
                prop_assert_eq!(&alone.pairs_by_distance, &many.pairs_by_distance);
            }
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
