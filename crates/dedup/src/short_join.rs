//! The short-document rule's candidate pairs by a sort, not an index.
//!
//! Every unit the prefix filter holds writes `(key, unit, length and
//! rank)` for each key of its prefix ([`PrefixFilter::prefix`]); the
//! records are sorted (on disk past a budget, [`SpillSort`]), and each run
//! of one key gives the pairs of its units that the rule holds and that may
//! pass by their lengths and the key's ranks ([`PrefixFilter::may_pass`]:
//! at 10⁸ short documents, a key ranked late in both is most of what two
//! documents that cannot pass share), and by their signatures
//! ([`Signature`]), held per unit while the join runs: a pair that cannot
//! pass is dropped before either sketch is read.
//! The pairs are sorted again by their later unit, and greedy grouping
//! reads them a block of units at a time, keeping only those with a unit
//! it kept. So the filter holds nothing per kept unit in memory, whatever
//! their number: the sorts take their budget and the disk the rest.
//!
//! A key that many units share (templated pages one word apart) would give
//! pairs that grow with the square of its run; such a run is not expanded.
//! Its key is *dense*: its units are read back with it, and greedy grouping
//! keeps, per dense key, the list of its kept units, which among
//! near-duplicates stays short. Either way a unit meets every earlier kept
//! unit it shares a key with, as the search of an index of kept units
//! would.

use std::ops::Range;
use std::path::Path;

use neardup_index::SpillSort;
use rayon::prelude::*;
use rustc_hash::FxHashMap;

use crate::by_unit::{ByUnit, sort_error};
use crate::column::Array;
use crate::error::{Error, Result};
use crate::greedy::Short;
use crate::prefix_filter::{Placed, Prefix, Signature};

/// Runs of one key longer than this are dense: their pairs are not
/// written out.
const DENSE: usize = 64;

/// Units whose prefixes are made at once, on all cores.
const CHUNK: usize = 1 << 16;

/// A key's record: its top 32 bits, the unit, the unit's sketch length
/// and the key's rank ([`Placed`]).
type Keyed = [u32; 3];

/// The filter's pairs of units, later unit first: `[later, earlier]`.
type Later = [u32; 2];

/// The filter's candidates, sorted for greedy grouping.
pub(crate) struct ShortJoin {
    /// Pairs from runs that are not dense, by their later unit.
    pairs: ByUnit<2>,
    /// Units under dense keys: `[unit, key, placed]`, by unit.
    dense: ByUnit<3>,
    /// The dense keys of the block last taken, by unit.
    block: Vec<Keyed>,
    /// Kept units under each dense key, with their lengths and ranks.
    kept: FxHashMap<u32, Vec<(u32, Placed)>>,
    /// Each unit's [`Signature`] (zero for those the filter does not hold).
    signatures: Array<u64>,
    /// Whether a sort outgrew its budget and went to runs on disk.
    spilled: bool,
}

impl ShortJoin {
    /// Sorts the prefix keys of the `units` units the filter holds (but
    /// not the `excluded` ones), and writes their pairs.
    ///
    /// # Errors
    ///
    /// A temporary file in the spill directory that cannot be written or
    /// read back.
    pub(crate) fn build(
        short: &Short,
        units: usize,
        excluded: &(dyn Fn(u32) -> bool + Sync),
    ) -> Result<ShortJoin> {
        // The keys' sort, then the pairs' and the dense units' together
        // while the first is read back: two thirds of the budget at most;
        // the signatures, the last third.
        let budget = short.memory / 3;
        let mut keyed = SpillSort::<Keyed>::new(budget, short.spill);
        let mut signatures = Array::<u64>::zeroed(units, budget, short.spill)?;
        short.sketches.read_ahead(0..CHUNK.min(units) as u32);
        for start in (0..units).step_by(CHUNK) {
            let end = (start + CHUNK).min(units);
            // The next chunk's sketches are read while this one's are used.
            short
                .sketches
                .read_ahead(end as u32..(end + CHUNK).min(units) as u32);
            let prefixes: Vec<(u32, Prefix)> = (start as u32..end as u32)
                .into_par_iter()
                .filter(|&u| !excluded(u))
                .filter_map(|u| short.prefix(u).map(|prefix| (u, prefix)))
                .collect();
            let mut records: Vec<Keyed> = Vec::new();
            for (u, prefix) in &prefixes {
                signatures[*u as usize] = prefix.signature.bits();
                records.extend(prefix.keys.iter().map(|&(key, rank)| {
                    [(key >> 32) as u32, *u, Placed::new(prefix.len, rank).bits()]
                }));
            }
            keyed
                .push(&records)
                .map_err(|e| spill_error(short.spill, e))?;
        }
        let signature = |u: u32| Signature::from_bits(signatures[u as usize]);
        let mut pairs = SpillSort::<Later>::new(budget / 2, short.spill);
        let mut dense = SpillSort::<Keyed>::new(budget / 2, short.spill);
        let mut run: Vec<Keyed> = Vec::new();
        let mut out: Vec<Later> = Vec::new();
        let mut flush = |run: &mut Vec<Keyed>, out: &mut Vec<Later>| -> Result<()> {
            // Of a unit's records under one key (top bits shared by two of
            // its elements), the first: ranked first, it prunes least.
            run.dedup_by_key(|r| r[1]);
            if run.len() < 2 {
                // Most keys are one unit's alone (its rarest words): no
                // pair, and nothing of the unit to look up.
            } else if run.len() > DENSE {
                let by_unit: Vec<Keyed> = run
                    .iter()
                    .map(|&[key, u, placed]| [u, key, placed])
                    .collect();
                dense
                    .push(&by_unit)
                    .map_err(|e| spill_error(short.spill, e))?;
            } else {
                // Each unit's signature and shortness looked up once per
                // run, not once per pair (a pair with a short unit is one
                // of the rule's, as `Short::pairs` says).
                let met: Vec<(u32, (Placed, Signature), bool)> = run
                    .iter()
                    .map(|&[_, u, placed]| {
                        let short_u = short.short[u as usize];
                        (u, (Placed::from_bits(placed), signature(u)), short_u)
                    })
                    .collect();
                for (j, &(b, at_b, short_b)) in met.iter().enumerate() {
                    out.extend(
                        met[..j]
                            .iter()
                            .filter(|&&(_, at_a, short_a)| {
                                (short_a || short_b) && short.filter.may_pass(at_a, at_b)
                            })
                            .map(|&(a, _, _)| [b, a]),
                    );
                }
                if out.len() >= CHUNK {
                    pairs.push(out).map_err(|e| spill_error(short.spill, e))?;
                    out.clear();
                }
            }
            run.clear();
            Ok(())
        };
        let keys_spilled = keyed.spilled();
        for record in keyed.finish().map_err(|e| spill_error(short.spill, e))? {
            let record = record.map_err(|e| spill_error(short.spill, e))?;
            if run.last().is_some_and(|last| last[0] != record[0]) {
                flush(&mut run, &mut out)?;
            }
            run.push(record);
        }
        flush(&mut run, &mut out)?;
        pairs.push(&out).map_err(|e| spill_error(short.spill, e))?;
        let spilled = keys_spilled || pairs.spilled() || dense.spilled();
        Ok(ShortJoin {
            pairs: ByUnit::new(pairs.finish().map_err(|e| spill_error(short.spill, e))?),
            dense: ByUnit::new(dense.finish().map_err(|e| spill_error(short.spill, e))?),
            block: Vec::new(),
            kept: FxHashMap::default(),
            signatures,
            spilled,
        })
    }

    /// The candidates of each unit of `block`, in order: the earlier units
    /// it pairs with. Units before the block are all those of its pairs
    /// and the kept ones under its dense keys (the caller keeps the kept
    /// ones); units in the block are all those it pairs with.
    ///
    /// # Errors
    ///
    /// A temporary file that cannot be read back.
    pub(crate) fn take(&mut self, block: Range<u32>, short: &Short) -> Result<Vec<Vec<u32>>> {
        let spill = short.spill;
        let mut found = self
            .pairs
            .take_lists(block.clone(), |[_, a]| a)
            .map_err(|e| spill_error(spill, e))?;
        self.block.clear();
        let held = &mut self.block;
        self.dense
            .take_before(block.end, |record| {
                if record[0] >= block.start {
                    held.push(record);
                }
            })
            .map_err(|e| spill_error(spill, e))?;
        // Under each dense key: the kept units before the block, and the
        // units earlier in the block.
        let mut here: FxHashMap<u32, Vec<(u32, Placed)>> = FxHashMap::default();
        let signature = |u: u32| Signature::from_bits(self.signatures[u as usize]);
        for &[u, key, placed] in &self.block {
            let at_u = (Placed::from_bits(placed), signature(u));
            let meets = |&&(a, placed_a): &&(u32, Placed)| {
                short.pairs(a, u) && short.filter.may_pass((placed_a, signature(a)), at_u)
            };
            let earlier = self.kept.get(&key).into_iter().flatten();
            let list = &mut found[(u - block.start) as usize];
            list.extend(earlier.filter(meets).map(|&(a, _)| a));
            let in_block = here.entry(key).or_default();
            list.extend(in_block.iter().filter(meets).map(|&(a, _)| a));
            in_block.push((u, at_u.0));
        }
        for list in &mut found {
            list.sort_unstable();
            list.dedup();
        }
        Ok(found)
    }

    /// Whether a sort went to runs on disk.
    pub(crate) fn spilled(&self) -> bool {
        self.spilled
    }

    /// Unit `u` of the block last taken is kept: the later blocks meet it
    /// under its dense keys.
    pub(crate) fn keep(&mut self, u: u32) {
        let at = self.block.partition_point(|r| r[0] < u);
        for &[_, key, placed] in self.block[at..].iter().take_while(|r| r[0] == u) {
            self.kept
                .entry(key)
                .or_default()
                .push((u, Placed::from_bits(placed)));
        }
    }
}

fn spill_error(dir: &Path, e: neardup_index::Error) -> Error {
    sort_error("sort the short-document rule's pairs in", dir, e)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::prefix_filter::{ElementCounts, PrefixFilter};
    use crate::verify::Verification;

    /// Sketches over a small alphabet: keys that a few units share, and
    /// keys that more than [`DENSE`] share.
    fn sketches() -> impl Strategy<Value = Vec<Vec<u64>>> {
        let sketch = prop_oneof![
            prop::collection::vec(0u64..40, 1..12),
            prop::collection::vec(0u64..3, 1..3),
        ];
        prop::collection::vec(sketch, 2..500).prop_map(|all| {
            all.into_iter()
                .map(|mut s| {
                    for x in &mut s {
                        *x = x.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x5555_0000_1234;
                    }
                    s.sort_unstable();
                    s.dedup();
                    s
                })
                .collect()
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(16))]

        /// Taken a block at a time with every unit kept, the join gives each
        /// unit the earlier units it shares a key with that the rule holds
        /// and that may pass by their lengths and the key's ranks: what an
        /// index of kept units gives.
        #[test]
        fn the_join_meets_what_an_index_of_kept_units_meets(
            all in sketches(),
            seed in any::<u32>(),
            block in 1u32..50,
            memory in prop_oneof![Just(1024u64), Just(1 << 30)],
        ) {
            let n = all.len();
            let short: Vec<bool> = (0..n).map(|u| (u as u32 ^ seed) % 3 != 1).collect();
            let members: Vec<bool> = (0..n).map(|u| short[u] || (u as u32 ^ seed) % 4 == 2).collect();
            let excluded = |u: u32| (u ^ seed) % 41 == 3;
            let verification = Verification::Jaccard(0.6);
            let counts = ElementCounts::new();
            for (s, _) in all.iter().zip(&members).filter(|(_, m)| **m) {
                counts.add(s);
            }
            let filter = PrefixFilter::new(verification, counts);
            let spill = tempfile::tempdir().unwrap();
            let rule = Short {
                members: &members,
                short: &short,
                filter: &filter,
                sketches: &all,
                spill: spill.path(),
                memory,
            };
            let prefixes: Vec<Option<Prefix>> = (0..n as u32)
                .map(|u| rule.prefix(u).filter(|_| !excluded(u)))
                .collect();
            let mut join = ShortJoin::build(&rule, n, &excluded).unwrap();
            for start in (0..n as u32).step_by(block as usize) {
                let end = (start + block).min(n as u32);
                let found = join.take(start..end, &rule).unwrap();
                for u in start..end {
                    let expected: Vec<u32> = (0..u)
                        .filter(|&a| match (&prefixes[a as usize], &prefixes[u as usize]) {
                            (Some(pa), Some(pu)) => {
                                rule.pairs(a, u) && pa.keys.iter().any(|&(k, ra)| {
                                    pu.keys.iter().any(|&(l, ru)| {
                                        k >> 32 == l >> 32 && filter.may_pass(pa.at(ra), pu.at(ru))
                                    })
                                })
                            }
                            _ => false,
                        })
                        .collect();
                    prop_assert_eq!(&found[(u - start) as usize], &expected, "unit {}", u);
                    join.keep(u);
                }
            }
        }
    }
}
