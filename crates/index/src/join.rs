//! Every pair within `k`: the batch mode of Manku et al. §3.
//!
//! One table at a time, the fingerprints (each with its number) are sorted
//! by their bits under the table's key mask, so that fingerprints that share
//! the key are neighbours, and each pair of neighbours is compared without
//! reading anything else. Memory is the fingerprints and one table's array
//! (12 bytes per 64-bit fingerprint), whatever the number of tables.
//!
//! A pair shares keys in several tables. It is reported by the first table
//! in which it shares the key, and skipped by the others, which test the two
//! fingerprints against the earlier tables' masks; so no set of pairs
//! already seen is kept.

use rayon::prelude::*;

use crate::bits::Bits;
use crate::error::{Error, Result};
use crate::plan::TablePlan;

/// Two fingerprints within `k` bits of each other: their positions in the
/// input and their distance.
///
/// In a self-join `a < b`, both positions in the one input; in a join of
/// queries against a base, `a` is the query's position and `b` the base's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(C)]
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
/// [`Error::WidthMismatch`] when the plan's width is not `B`'s,
/// [`Error::TooManyFingerprints`] for 2³² fingerprints or more.
pub fn self_join<B: Bits>(plan: &TablePlan, fingerprints: &[B]) -> Result<Vec<Pair>> {
    Join::new(plan, Sides::One(fingerprints))?.run(&|_: &Pair| true)
}

/// The pairs of [`self_join`] that `keep` accepts, sorted by `(a, b)`:
/// `keep` sees each pair once, as it is found (on any thread of the pool),
/// so the pairs it refuses take no memory; one that counts and refuses them
/// all counts the pairs in no memory. A caller with more pairs than memory can take them a slice at a
/// time (by `b`, say), one join per slice.
///
/// ```
/// use neardup_core::Width;
/// use neardup_index::{Pair, TablePlan, self_join_where};
///
/// let plan = TablePlan::pigeonhole(Width::W64, 3)?;
/// let fps = [0u64, 0, 1, 1 << 40];
/// let pairs = self_join_where(&plan, &fps, |p| p.b == 2)?;
/// assert_eq!(pairs, [
///     Pair { a: 0, b: 2, distance: 1 },
///     Pair { a: 1, b: 2, distance: 1 },
/// ]);
/// # Ok::<(), neardup_index::Error>(())
/// ```
///
/// # Errors
///
/// As [`self_join`].
pub fn self_join_where<B: Bits>(
    plan: &TablePlan,
    fingerprints: &[B],
    keep: impl Fn(&Pair) -> bool + Sync,
) -> Result<Vec<Pair>> {
    Join::new(plan, Sides::One(fingerprints))?.run(&keep)
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
    Join::new(plan, Sides::Two { queries, base })?.run(&|_: &Pair| true)
}

// SAFETY: three u32s under repr(C): no padding, and every bit pattern is a
// pair.
unsafe impl bytemuck::Zeroable for Pair {}
// SAFETY: as above; Pair is Copy and 'static.
unsafe impl bytemuck::Pod for Pair {}

/// Pairs handed to a sink at a time, per thread: what a streaming join
/// holds besides its table.
const CHUNK: usize = 1 << 16;

/// Every pair of [`self_join`], each once, in no particular order, handed
/// to `sink` a chunk at a time as the join finds them (on any thread of
/// the current rayon pool). The join holds one table's array (12 bytes per
/// 64-bit fingerprint) and a chunk of pairs per thread, however many pairs
/// there are: a sink that writes them to disk ([`crate::SpillSort`], say)
/// takes a join with more pairs than memory.
///
/// ```
/// use std::sync::Mutex;
/// use neardup_core::Width;
/// use neardup_index::{TablePlan, self_join, self_join_each};
///
/// let plan = TablePlan::pigeonhole(Width::W64, 3)?;
/// let fps = [0u64, 0b1, 0b11, 1 << 40, 0];
/// let found = Mutex::new(Vec::new());
/// self_join_each(&plan, &fps, |pairs| {
///     found.lock().unwrap().extend_from_slice(pairs);
///     Ok(())
/// })?;
/// let mut found = found.into_inner().unwrap();
/// found.sort();
/// assert_eq!(found, self_join(&plan, &fps)?);
/// # Ok::<(), neardup_index::Error>(())
/// ```
///
/// # Errors
///
/// As [`self_join`], and the first error of `sink`, after which the join
/// stops.
pub fn self_join_each<B: Bits>(
    plan: &TablePlan,
    fingerprints: &[B],
    sink: impl Fn(&[Pair]) -> Result<()> + Sync,
) -> Result<()> {
    Join::new(plan, Sides::One(fingerprints))?.each(&sink)
}

/// The pairs of [`cross_join`] as [`self_join_each`] hands them over.
///
/// # Errors
///
/// As [`self_join_each`].
pub fn cross_join_each<B: Bits>(
    plan: &TablePlan,
    queries: &[B],
    base: &[B],
    sink: impl Fn(&[Pair]) -> Result<()> + Sync,
) -> Result<()> {
    Join::new(plan, Sides::Two { queries, base })?.each(&sink)
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
    /// Each table's key mask.
    masks: Vec<B>,
}

impl<'a, B: Bits> Join<'a, B> {
    fn new(plan: &'a TablePlan, sides: Sides<'a, B>) -> Result<Join<'a, B>> {
        if plan.width() != B::WIDTH {
            return Err(Error::WidthMismatch {
                plan_bits: plan.width().bits(),
                bits: B::WIDTH.bits(),
            });
        }
        let n = sides.len();
        if u32::try_from(n).is_err() {
            return Err(Error::TooManyFingerprints { count: n });
        }
        let masks = (0..plan.tables())
            .map(|t| B::from_u128(plan.mask(t)))
            .collect();
        Ok(Join { plan, sides, masks })
    }

    /// Every fingerprint with its number: the array each table sorts.
    fn entries(&self) -> Vec<Entry<B>> {
        let n = self.sides.len() as u32;
        let mut entries: Vec<Entry<B>> = Vec::with_capacity(n as usize);
        (0..n)
            .into_par_iter()
            .map(|id| Entry {
                fp: self.sides.get(id),
                id,
            })
            .collect_into_vec(&mut entries);
        entries
    }

    fn each(&self, sink: &(dyn Fn(&[Pair]) -> Result<()> + Sync)) -> Result<()> {
        let mut entries = self.entries();
        for (t, &mask) in self.masks.iter().enumerate() {
            entries.par_sort_unstable_by_key(|e| e.masked(mask));
            segments(&entries, mask)
                .into_par_iter()
                .try_for_each(|segment| {
                    let mut out = Vec::new();
                    self.pairs_in_segment(t, mask, segment, &|_| true, &mut out, &mut |full| {
                        let sent = sink(full);
                        full.clear();
                        sent
                    })?;
                    if out.is_empty() { Ok(()) } else { sink(&out) }
                })?;
        }
        Ok(())
    }

    fn run(&self, keep: &(impl Fn(&Pair) -> bool + Sync)) -> Result<Vec<Pair>> {
        let mut entries = self.entries();
        let mut pairs = Vec::new();
        for (t, &mask) in self.masks.iter().enumerate() {
            entries.par_sort_unstable_by_key(|e| e.masked(mask));
            let found: Vec<Vec<Pair>> = segments(&entries, mask)
                .into_par_iter()
                .map(|segment| {
                    let mut out = Vec::new();
                    // Held whole: a full chunk is left as it is.
                    self.pairs_in_segment(t, mask, segment, keep, &mut out, &mut |_| Ok(()))
                        .map(|()| out)
                })
                .collect::<Result<_>>()?;
            // Grown once to size: doubling would leave up to half unused.
            pairs.reserve_exact(found.iter().map(Vec::len).sum());
            for part in found {
                pairs.extend_from_slice(&part);
            }
        }
        pairs.par_sort_unstable();
        Ok(pairs)
    }

    /// The pairs first found in table `t` in `segment`, whole runs of
    /// entries sorted by their key under `mask`, added to `out`; when
    /// `out` holds [`CHUNK`] pairs, `full` is called with it.
    fn pairs_in_segment(
        &self,
        t: usize,
        mask: B,
        segment: &[Entry<B>],
        keep: &(impl Fn(&Pair) -> bool + ?Sized),
        out: &mut Vec<Pair>,
        full: &mut dyn FnMut(&mut Vec<Pair>) -> Result<()>,
    ) -> Result<()> {
        let mut start = 0;
        while start < segment.len() {
            let key = segment[start].masked(mask);
            let end = segment[start + 1..]
                .iter()
                .position(|e| e.masked(mask) != key)
                .map_or(segment.len(), |i| start + 1 + i);
            if end - start > 1 {
                self.pairs_in_run(t, &segment[start..end], keep, out, full)?;
            }
            start = end;
        }
        Ok(())
    }

    /// The pairs first found in table `t` among the entries of `run`, which
    /// share its key, that `keep` accepts, added to `out`.
    fn pairs_in_run(
        &self,
        t: usize,
        run: &[Entry<B>],
        keep: &(impl Fn(&Pair) -> bool + ?Sized),
        out: &mut Vec<Pair>,
        full: &mut dyn FnMut(&mut Vec<Pair>) -> Result<()>,
    ) -> Result<()> {
        let k = self.plan.k();
        for (i, x) in run.iter().enumerate() {
            let (fx, ix) = (x.fp, x.id);
            for y in &run[i + 1..] {
                let (fy, iy) = (y.fp, y.id);
                let distance = fx.distance(fy);
                if distance > k {
                    continue;
                }
                let (a, b) = if ix < iy { (ix, iy) } else { (iy, ix) };
                let Some(pair) = self.sides.pair(a, b, distance) else {
                    continue;
                };
                let earlier = &self.masks[..t];
                // `keep` last: it sees each pair once, in its first table.
                if earlier.iter().all(|&m| fx.and(m) != fy.and(m)) && keep(&pair) {
                    out.push(pair);
                    if out.len() == CHUNK {
                        full(out)?;
                    }
                }
            }
        }
        Ok(())
    }
}

/// A fingerprint and its number, 12 bytes for 64 bits: the array of one
/// table is the join's memory.
#[derive(Clone, Copy, Debug)]
#[repr(C, packed(4))]
struct Entry<B> {
    fp: B,
    id: u32,
}

impl<B: Bits> Entry<B> {
    /// The fingerprint's bits under `mask`: the table's key.
    #[inline(always)]
    fn masked(&self, mask: B) -> B {
        let fp = self.fp;
        fp.and(mask)
    }
}

/// `entries`, sorted by key under `mask`, cut into about as many parts as
/// there are threads times eight, each cut at the start of a run of equal
/// keys.
fn segments<B: Bits>(entries: &[Entry<B>], mask: B) -> Vec<&[Entry<B>]> {
    let parts = rayon::current_num_threads() * 8;
    let step = entries.len().div_ceil(parts).max(1);
    let mut out = Vec::with_capacity(parts);
    let mut start = 0;
    while start < entries.len() {
        let mut end = (start + step).min(entries.len());
        while end < entries.len() && entries[end].masked(mask) == entries[end - 1].masked(mask) {
            end += 1;
        }
        out.push(&entries[start..end]);
        start = end;
    }
    out
}

/// Which of `fingerprints` have another within `plan.k()` bits: the
/// documents a later step may compare, found without listing the pairs.
/// In each table a fingerprint looks through its run of equal keys only
/// until it meets one near it, so a run of a thousand near-identical
/// fingerprints costs a few thousand comparisons, not half a million. On all
/// cores of the current rayon pool; memory as [`self_join`].
///
/// ```
/// use neardup_core::Width;
/// use neardup_index::{TablePlan, with_neighbours};
///
/// let plan = TablePlan::pigeonhole(Width::W64, 3)?;
/// let fps = [0u64, 0b111, 1 << 40 | 0xff, 0b1];
/// assert_eq!(with_neighbours(&plan, &fps)?, [true, true, false, true]);
/// # Ok::<(), neardup_index::Error>(())
/// ```
///
/// # Errors
///
/// As [`self_join`].
pub fn with_neighbours<B: Bits>(plan: &TablePlan, fingerprints: &[B]) -> Result<Vec<bool>> {
    use std::sync::atomic::{AtomicBool, Ordering};

    let k = plan.k();
    let found: Vec<AtomicBool> = (0..fingerprints.len())
        .map(|_| AtomicBool::new(false))
        .collect();
    for_each_run(plan, fingerprints, |run| {
        let (ids, fps) = (run.ids(), run.fingerprints());
        for (i, (&x, &fx)) in ids.iter().zip(fps).enumerate() {
            if found[x as usize].load(Ordering::Relaxed) {
                continue;
            }
            let near = |fy: &B| fx.distance(*fy) <= k;
            let j = fps[..i]
                .iter()
                .position(near)
                .or_else(|| fps[i + 1..].iter().position(near).map(|j| i + 1 + j));
            if let Some(j) = j {
                found[x as usize].store(true, Ordering::Relaxed);
                found[ids[j] as usize].store(true, Ordering::Relaxed);
            }
        }
    })?;
    Ok(found.into_iter().map(AtomicBool::into_inner).collect())
}

/// Each run of two or more of `fingerprints` that share their key in a table
/// of `plan`, as the join meets it: `visit` gets a [`Run`] (the table, the
/// fingerprints' positions, and which table each pair shares first), on
/// any thread of the current rayon pool. For callers that decide what to
/// compare in a run themselves, such as grouping that skips pairs already
/// in one group: a run of a thousand near-identical fingerprints then costs
/// a sort, not half a million comparisons.
///
/// ```
/// use std::sync::Mutex;
/// use neardup_core::Width;
/// use neardup_index::{TablePlan, for_each_run};
///
/// let plan = TablePlan::pigeonhole(Width::W64, 1)?;
/// let fps = [0u64, 1, 1 << 40, 0xffff_0000_0000_0000];
/// let runs = Mutex::new(Vec::new());
/// for_each_run(&plan, &fps, |run| {
///     let mut ids = run.ids().to_vec();
///     ids.sort();
///     runs.lock().unwrap().push((run.table(), ids));
/// })?;
/// let mut runs = runs.into_inner().unwrap();
/// runs.sort();
/// // Table 0 keys the low 32 bits, table 1 the high 32.
/// assert_eq!(runs, [(0, vec![0, 2, 3]), (1, vec![0, 1])]);
/// # Ok::<(), neardup_index::Error>(())
/// ```
///
/// # Errors
///
/// As [`self_join`].
pub fn for_each_run<B: Bits>(
    plan: &TablePlan,
    fingerprints: &[B],
    visit: impl Fn(&Run<'_, B>) + Sync,
) -> Result<()> {
    map_runs(
        plan,
        fingerprints,
        |run| {
            visit(run);
            None::<()>
        },
        |_, _| {},
    )
}

/// As [`for_each_run`], and what `visit` makes of each run of a table
/// (when it makes something) is handed to `table_done` once the table is
/// joined, in the order of the runs' keys, whatever threads visited them:
/// for callers that must act on what a table found in an order that does
/// not depend on the number of threads, before the next table is joined.
///
/// ```
/// use neardup_core::Width;
/// use neardup_index::{TablePlan, map_runs};
///
/// let plan = TablePlan::pigeonhole(Width::W64, 1)?;
/// let fps = [0u64, 1, 1 << 40, 0xffff_0000_0000_0000];
/// let mut sizes = Vec::new();
/// map_runs(&plan, &fps, |run| Some(run.ids().len()), |table, found| sizes.push((table, found)))?;
/// // Table 0 keys the low 32 bits, table 1 the high 32.
/// assert_eq!(sizes, [(0, vec![3]), (1, vec![2])]);
/// # Ok::<(), neardup_index::Error>(())
/// ```
///
/// # Errors
///
/// As [`self_join`].
pub fn map_runs<B: Bits, R: Send>(
    plan: &TablePlan,
    fingerprints: &[B],
    visit: impl Fn(&Run<'_, B>) -> Option<R> + Sync,
    mut table_done: impl FnMut(usize, Vec<R>),
) -> Result<()> {
    let join = Join::new(plan, Sides::One(fingerprints))?;
    let mut entries = join.entries();
    for (t, &mask) in join.masks.iter().enumerate() {
        entries.par_sort_unstable_by_key(|e| e.masked(mask));
        let found: Vec<Vec<R>> = segments(&entries, mask)
            .into_par_iter()
            .map(|segment| {
                let (mut ids, mut fps, mut found) = (Vec::new(), Vec::new(), Vec::new());
                for run in segment.chunk_by(|x, y| x.masked(mask) == y.masked(mask)) {
                    if run.len() > 1 {
                        ids.clear();
                        ids.extend(run.iter().map(|e| e.id));
                        fps.clear();
                        fps.extend(run.iter().map(|e| e.fp));
                        found.extend(visit(&Run {
                            table: t,
                            ids: &ids,
                            fingerprints: &fps,
                            masks: &join.masks,
                        }));
                    }
                }
                found
            })
            .collect();
        table_done(t, found.into_iter().flatten().collect());
    }
    Ok(())
}

/// Fingerprints that share their key in one table ([`for_each_run`],
/// [`map_runs`]).
#[derive(Debug)]
pub struct Run<'a, B> {
    table: usize,
    ids: &'a [u32],
    fingerprints: &'a [B],
    masks: &'a [B],
}

impl<B: Bits> Run<'_, B> {
    /// The table.
    pub fn table(&self) -> usize {
        self.table
    }

    /// The positions of the run's fingerprints.
    pub fn ids(&self) -> &[u32] {
        self.ids
    }

    /// The run's fingerprints, in the order of [`Run::ids`]: read in a row,
    /// where looking each up by its position would jump about memory.
    pub fn fingerprints(&self) -> &[B] {
        self.fingerprints
    }

    /// Whether fingerprints `a` and `b` of the run share no key in an
    /// earlier table: a pair is reported by the first table it shares, so
    /// that each is met once.
    pub fn first_met_here(&self, a: B, b: B) -> bool {
        self.masks[..self.table]
            .iter()
            .all(|&m| a.and(m) != b.and(m))
    }
}
