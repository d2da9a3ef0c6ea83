//! Every pair within `k`: the batch mode of Manku et al. §3.
//!
//! One table at a time, every fingerprint's key in that table is packed with
//! the fingerprint's number into one `u64` and the array is sorted; then
//! fingerprints with equal keys are neighbours, and each pair of them is
//! compared. Memory is the fingerprints and one table's array, 8 bytes per
//! fingerprint, whatever the number of tables.
//!
//! A pair shares keys in several tables. It is reported by the first table
//! in which its keys are equal, and skipped by the others, which check the
//! earlier tables' keys of the two fingerprints; so no set of pairs already
//! seen is kept.
//!
//! A key longer than the bits left beside the fingerprint's number keeps its
//! highest bits: fingerprints equal on a whole key are equal on part of it,
//! so no pair is lost, and the few extra candidates are compared and
//! dropped.

use rayon::prelude::*;

use crate::bits::Bits;
use crate::error::{Error, Result};
use crate::plan::TablePlan;

/// Two fingerprints within `k` bits of each other: their positions in the
/// input and their distance.
///
/// In a self-join `a < b`, both positions in the one input; in a join of
/// queries against a base, `a` is the query's position and `b` the base's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pair {
    /// The first fingerprint.
    pub a: u32,
    /// The second fingerprint.
    pub b: u32,
    /// Their Hamming distance.
    pub distance: u32,
}

/// Every pair of `fingerprints` within `plan.k()` bits, each once, sorted by
/// `(a, b)`; identical fingerprints are pairs at distance 0. On all cores of
/// the current rayon pool.
///
/// ```
/// use neardup_core::Width;
/// use neardup_index::{Pair, TablePlan, self_join};
///
/// let plan = TablePlan::pigeonhole(Width::W64, 3)?;
/// let fps = [0xffff_0000_ffff_0000u64, 0x1234, 0xffff_0000_ffff_0007, 0x1234];
/// let pairs = self_join(&plan, &fps)?;
/// assert_eq!(pairs, [
///     Pair { a: 0, b: 2, distance: 3 },
///     Pair { a: 1, b: 3, distance: 0 },
/// ]);
/// # Ok::<(), neardup_index::Error>(())
/// ```
///
/// # Errors
///
/// [`Error::Input`] when the plan's width is not `B`'s, or there are 2³²
/// fingerprints or more.
pub fn self_join<B: Bits>(plan: &TablePlan, fingerprints: &[B]) -> Result<Vec<Pair>> {
    Join::new(plan, Sides::One(fingerprints))?.run()
}

/// Every pair of a query and a base fingerprint within `plan.k()` bits,
/// sorted by `(a, b)` where `a` is the query's position and `b` the base's.
///
/// ```
/// use neardup_core::Width;
/// use neardup_index::{Pair, TablePlan, cross_join};
///
/// let plan = TablePlan::new(Width::W64, 2, 4)?;
/// let base = [0u64, u64::MAX, 0b11];
/// let queries = [0b1u64, 0b1 << 40 | 0b1 << 20 | 0b1];
/// let pairs = cross_join(&plan, &queries, &base)?;
/// assert_eq!(pairs, [
///     Pair { a: 0, b: 0, distance: 1 },
///     Pair { a: 0, b: 2, distance: 1 },
/// ]);
/// # Ok::<(), neardup_index::Error>(())
/// ```
///
/// # Errors
///
/// As [`self_join`], for the two sets together.
pub fn cross_join<B: Bits>(plan: &TablePlan, queries: &[B], base: &[B]) -> Result<Vec<Pair>> {
    Join::new(plan, Sides::Two { queries, base })?.run()
}

/// The input of a join: one set, or queries and a base.
#[derive(Clone, Copy)]
enum Sides<'a, B> {
    One(&'a [B]),
    Two { queries: &'a [B], base: &'a [B] },
}

impl<B: Bits> Sides<'_, B> {
    fn len(&self) -> usize {
        match self {
            Sides::One(f) => f.len(),
            Sides::Two { queries, base } => queries.len() + base.len(),
        }
    }

    /// The fingerprint numbered `id`: queries first, then the base.
    #[inline(always)]
    fn get(&self, id: u32) -> B {
        let id = id as usize;
        match self {
            Sides::One(f) => f[id],
            Sides::Two { queries, base } => match queries.get(id) {
                Some(&q) => q,
                None => base[id - queries.len()],
            },
        }
    }

    /// The pair of `a < b` if it is one the join reports: any two in a
    /// self-join, a query and a base fingerprint otherwise.
    #[inline(always)]
    fn pair(&self, a: u32, b: u32, distance: u32) -> Option<Pair> {
        match self {
            Sides::One(_) => Some(Pair { a, b, distance }),
            Sides::Two { queries, .. } => {
                let split = queries.len() as u32;
                (a < split && b >= split).then(|| Pair {
                    a,
                    b: b - split,
                    distance,
                })
            }
        }
    }
}

/// A join under way.
struct Join<'a, B> {
    plan: &'a TablePlan,
    sides: Sides<'a, B>,
    /// Bits of a fingerprint's number in a packed entry.
    id_bits: u32,
    /// For each table, how far its key is shifted right to fit.
    drop_bits: Vec<u32>,
}

impl<'a, B: Bits> Join<'a, B> {
    fn new(plan: &'a TablePlan, sides: Sides<'a, B>) -> Result<Join<'a, B>> {
        if plan.width() != B::WIDTH {
            return Err(Error::Input(format!(
                "the plan is for {}-bit fingerprints, these have {} bits",
                plan.width().bits(),
                B::WIDTH.bits()
            )));
        }
        let n = sides.len();
        if u32::try_from(n).is_err() {
            return Err(Error::Input(format!(
                "{n} fingerprints; a join takes fewer than 2^32"
            )));
        }
        let id_bits = (usize::BITS - n.saturating_sub(1).leading_zeros()).max(1);
        let drop_bits = (0..plan.tables())
            .map(|t| plan.key_bits(t).saturating_sub(64 - id_bits))
            .collect();
        Ok(Join {
            plan,
            sides,
            id_bits,
            drop_bits,
        })
    }

    /// The key of fingerprint `fp` in table `t`, as it is packed.
    #[inline(always)]
    fn key(&self, t: usize, fp: B) -> u64 {
        self.plan.key(t, fp) >> self.drop_bits[t]
    }

    fn run(&self) -> Result<Vec<Pair>> {
        let n = self.sides.len() as u32;
        let mut entries: Vec<u64> = Vec::with_capacity(n as usize);
        let mut pairs = Vec::new();
        for t in 0..self.plan.tables() {
            entries.clear();
            (0..n)
                .into_par_iter()
                .map(|id| self.key(t, self.sides.get(id)) << self.id_bits | u64::from(id))
                .collect_into_vec(&mut entries);
            entries.par_sort_unstable();
            let id_mask = (1u64 << self.id_bits) - 1;
            let id_bits = self.id_bits;
            let found: Vec<Vec<Pair>> = entries
                .par_chunk_by(|x, y| x >> id_bits == y >> id_bits)
                .filter(|run| run.len() > 1)
                .map(|run| self.pairs_in_run(t, run, id_mask))
                .filter(|p| !p.is_empty())
                .collect();
            pairs.extend(found.into_iter().flatten());
        }
        pairs.par_sort_unstable();
        Ok(pairs)
    }

    /// The pairs first found in table `t` among fingerprints whose entries
    /// `run` share a key.
    fn pairs_in_run(&self, t: usize, run: &[u64], id_mask: u64) -> Vec<Pair> {
        let k = self.plan.k();
        let mut out = Vec::new();
        for (i, &x) in run.iter().enumerate() {
            let a = (x & id_mask) as u32;
            let fa = self.sides.get(a);
            for &y in &run[i + 1..] {
                let b = (y & id_mask) as u32;
                let fb = self.sides.get(b);
                let distance = fa.distance(fb);
                if distance > k {
                    continue;
                }
                let Some(pair) = self.sides.pair(a, b, distance) else {
                    continue;
                };
                if (0..t).all(|earlier| self.key(earlier, fa) != self.key(earlier, fb)) {
                    out.push(pair);
                }
            }
        }
        out
    }
}
