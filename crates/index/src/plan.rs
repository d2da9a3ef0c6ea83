//! Which bits key which table.
//!
//! Split the `f` bits of a fingerprint into `r` blocks. Two fingerprints
//! within `k` bits of each other differ in at most `k` blocks, so they agree
//! exactly on at least `r − k` of them (the pigeonhole principle). A table
//! keyed by a choice of `r − k` blocks, one table for each of the `C(r, k)`
//! choices, therefore finds every near-duplicate by exact key lookups. With
//! `r = k + 1` this is the scheme of seeds 000–002 (for `k = 3`, four tables
//! on 16-bit keys); larger `r` is Manku, Jain and Das Sarma's (§3): longer
//! keys, so fewer candidates per lookup, but more tables (for `k = 3`, ten
//! tables on 25–26-bit keys, or twenty on 32–33-bit keys).
//!
//! [`TablePlan::choose`] weighs the options for an expected number of
//! fingerprints, as the paper's §3.1.2 does.

use neardup_core::Width;

use crate::bits::Bits;
use crate::error::{Error, Result};

/// The most tables a plan may have.
pub const MAX_TABLES: usize = 4096;

/// A run of `len` bits of a fingerprint, starting at bit `offset` (bit 0 is
/// the least significant).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Block {
    /// The first bit.
    pub offset: u32,
    /// How many bits.
    pub len: u32,
}

/// Where a table's key takes one block from, and where it puts it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Part {
    offset: u32,
    len: u32,
    shift: u32,
}

/// The blocks of a fingerprint and which of them key each table.
///
/// ```
/// use neardup_core::Width;
/// use neardup_index::TablePlan;
///
/// // Seeds 000–002: four tables on 16-bit keys for k = 3.
/// let plan = TablePlan::new(Width::W64, 3, 4)?;
/// assert_eq!(plan.tables(), 4);
/// assert_eq!(plan.key_bits(0), 16);
/// // Manku's r = 5: C(5, 3) = 10 tables on 25- or 26-bit keys.
/// let plan = TablePlan::new(Width::W64, 3, 5)?;
/// assert_eq!(plan.tables(), 10);
/// assert!((25..=26).contains(&plan.key_bits(9)));
/// # Ok::<(), neardup_index::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TablePlan {
    width: Width,
    k: u32,
    blocks: Vec<Block>,
    /// For each table, the indices of its key's blocks, in increasing order.
    tables: Vec<Vec<usize>>,
    /// For each table, how its key is assembled from the fingerprint.
    parts: Vec<Vec<Part>>,
}

impl TablePlan {
    /// The plan of `blocks` blocks (`r`) for distance `k`: `C(r, k)` tables,
    /// each keyed by `r − k` blocks.
    ///
    /// # Errors
    ///
    /// [`Error::KNotBelowWidth`], [`Error::Blocks`] or
    /// [`Error::TooManyTables`] unless `k < r ≤ width` and the plan has at
    /// most [`MAX_TABLES`] tables.
    pub fn new(width: Width, k: u32, blocks: u32) -> Result<TablePlan> {
        let f = width.bits();
        if k >= f {
            return Err(Error::KNotBelowWidth { k, bits: f });
        }
        if blocks <= k || blocks > f {
            return Err(Error::Blocks { blocks, k, bits: f });
        }
        let tables = binomial(blocks, k);
        if tables > MAX_TABLES as u128 {
            return Err(Error::TooManyTables { blocks, k, tables });
        }
        // The first f % r blocks are one bit longer.
        let (base, extra) = (f / blocks, f % blocks);
        let mut offset = 0;
        let blocks: Vec<Block> = (0..blocks)
            .map(|i| {
                let len = base + u32::from(i < extra);
                let block = Block { offset, len };
                offset += len;
                block
            })
            .collect();
        let tables = combinations(blocks.len(), blocks.len() - k as usize);
        let parts = tables.iter().map(|t| key_parts(&blocks, t)).collect();
        Ok(TablePlan {
            width,
            k,
            blocks,
            tables,
            parts,
        })
    }

    /// The pigeonhole plan of the seeds: `k + 1` blocks, `k + 1` tables of
    /// one block each.
    ///
    /// # Errors
    ///
    /// [`Error::KNotBelowWidth`] when `k` is not below the width.
    pub fn pigeonhole(width: Width, k: u32) -> Result<TablePlan> {
        TablePlan::new(width, k, k + 1)
    }

    /// The width of the fingerprints.
    pub fn width(&self) -> Width {
        self.width
    }

    /// The distance every pair within which is found.
    pub fn k(&self) -> u32 {
        self.k
    }

    /// The blocks, from bit 0 up.
    pub fn blocks(&self) -> &[Block] {
        &self.blocks
    }

    /// The number of tables.
    pub fn tables(&self) -> usize {
        self.tables.len()
    }

    /// The blocks that key table `table`, as indices into
    /// [`TablePlan::blocks`]; empty for a table the plan does not have.
    pub fn table_blocks(&self, table: usize) -> &[usize] {
        self.tables.get(table).map_or(&[], Vec::as_slice)
    }

    /// The bits of table `table`'s key: its blocks' bits, at most 64 (a
    /// longer key keeps its first 64 bits, which finds the same pairs with
    /// more candidates).
    pub fn key_bits(&self, table: usize) -> u32 {
        self.parts
            .get(table)
            .map_or(0, |parts| parts.iter().map(|p| p.len).sum())
    }

    /// The bits of table `table`'s key, set in a mask (of the low 64 bits
    /// for 64-bit fingerprints): its key blocks, as far as the 64 bits of a
    /// key go. Two fingerprints have the same key exactly when they agree on
    /// these bits.
    ///
    /// ```
    /// use neardup_core::Width;
    /// use neardup_index::TablePlan;
    ///
    /// let plan = TablePlan::pigeonhole(Width::W64, 1)?;
    /// assert_eq!(plan.mask(0), 0xffff_ffff);
    /// assert_eq!(plan.mask(1), 0xffff_ffff_0000_0000);
    /// # Ok::<(), neardup_index::Error>(())
    /// ```
    pub fn mask(&self, table: usize) -> u128 {
        self.parts.get(table).map_or(0, |parts| {
            parts.iter().fold(0, |mask, p| {
                let ones = 1u128.checked_shl(p.len).map_or(u128::MAX, |x| x - 1);
                mask | ones << p.offset
            })
        })
    }

    /// The key of `fingerprint` in table `table`: the bits of its key blocks,
    /// the first block highest. Two fingerprints within `k` bits have the
    /// same key in at least one table.
    ///
    /// ```
    /// use neardup_core::Width;
    /// use neardup_index::TablePlan;
    ///
    /// let plan = TablePlan::pigeonhole(Width::W64, 3)?;
    /// let a = 0x0123_4567_89ab_cdefu64;
    /// let b = a ^ 0b111; // three bits apart, all in block 0
    /// assert_ne!(plan.key(0, a), plan.key(0, b));
    /// assert_eq!(plan.key(1, a), plan.key(1, b));
    /// # Ok::<(), neardup_index::Error>(())
    /// ```
    #[inline]
    pub fn key<B: Bits>(&self, table: usize, fingerprint: B) -> u64 {
        self.parts.get(table).map_or(0, |parts| {
            parts.iter().fold(0, |key, p| {
                key | fingerprint.field(p.offset, p.len) << p.shift
            })
        })
    }

    /// The plans worth considering for about `n` fingerprints, with the one
    /// of least expected work per query that fits `max_bytes_per_fingerprint`
    /// (any, if `None`).
    ///
    /// ```
    /// use neardup_core::Width;
    /// use neardup_index::TablePlan;
    ///
    /// let choice = TablePlan::choose(Width::W64, 3, 1e9, None)?;
    /// let best = &choice.options[choice.chosen];
    /// assert!(best.tables > 4, "a billion fingerprints need longer keys than 16 bits");
    /// # Ok::<(), neardup_index::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::KNotBelowWidth`] when `k` is not below the width,
    /// [`Error::NoPlanFits`] when no plan fits the
    /// budget.
    pub fn choose(
        width: Width,
        k: u32,
        n: f64,
        max_bytes_per_fingerprint: Option<f64>,
    ) -> Result<PlanChoice> {
        let options = TablePlan::options(width, k, n)?;
        let fits =
            |o: &PlanOption| max_bytes_per_fingerprint.is_none_or(|m| o.bytes_per_fingerprint <= m);
        let chosen = (0..options.len())
            .filter(|&i| fits(&options[i]))
            .min_by(|&a, &b| options[a].work.total_cmp(&options[b].work))
            .ok_or_else(|| Error::NoPlanFits {
                k,
                max_bytes: max_bytes_per_fingerprint.unwrap_or(0.0),
                smallest: options[0].bytes_per_fingerprint,
            })?;
        Ok(PlanChoice { options, chosen })
    }

    /// The plans worth considering for joining about `n` fingerprints, with
    /// the one of least expected work for [`crate::self_join`]: a sort of
    /// all fingerprints per table against the comparisons of the pairs that
    /// share a key. The join's memory does not depend on the plan.
    ///
    /// ```
    /// use neardup_core::Width;
    /// use neardup_index::TablePlan;
    ///
    /// let choice = TablePlan::choose_for_join(Width::W64, 3, 1e8)?;
    /// assert_eq!(choice.options[choice.chosen].tables, 10);
    /// # Ok::<(), neardup_index::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::KNotBelowWidth`] when `k` is not below the width.
    pub fn choose_for_join(width: Width, k: u32, n: f64) -> Result<PlanChoice> {
        let options = TablePlan::options(width, k, n)?;
        let chosen = (0..options.len())
            .min_by(|&a, &b| options[a].join_work.total_cmp(&options[b].join_work))
            .unwrap_or(0);
        Ok(PlanChoice { options, chosen })
    }

    /// Every plan from `k + 1` blocks up, while the number of tables allows,
    /// weighed from the blocks' lengths alone (no plan is built: a plan of
    /// thousands of tables takes a while, and is built once chosen).
    pub(crate) fn options(width: Width, k: u32, n: f64) -> Result<Vec<PlanOption>> {
        let f = width.bits();
        if k >= f {
            return Err(Error::KNotBelowWidth { k, bits: f });
        }
        let mut options = Vec::new();
        for r in k + 1..=f {
            if binomial(r, k) > MAX_TABLES as u128 {
                break;
            }
            options.push(PlanOption::weigh(width, k, r, n));
            if k == 0 {
                // One table on the whole fingerprint: more blocks change nothing.
                break;
            }
        }
        if options.is_empty() {
            // More than MAX_TABLES tables at k + 1 blocks already.
            return Err(Error::TooManyTables {
                blocks: k + 1,
                k,
                tables: binomial(k + 1, k),
            });
        }
        Ok(options)
    }
}

/// One plan, as [`TablePlan::choose`] weighs it.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanOption {
    /// Blocks (`r`).
    pub blocks: u32,
    /// Tables (`C(r, k)`).
    pub tables: usize,
    /// The shortest key, in bits.
    pub min_key_bits: u32,
    /// Fingerprints that share a key with a random query, summed over the
    /// tables: the candidates whose distance must be computed.
    pub candidates_per_query: f64,
    /// Memory of an online index: the fingerprint and a 4-byte entry per
    /// table.
    pub bytes_per_fingerprint: f64,
    /// Expected work per query, in units of one memory access: a probe per
    /// table and a fingerprint read per candidate.
    pub work: f64,
    /// Expected work of joining the `n` fingerprints, in comparisons: per
    /// table, a sort (`n log₂ n`) and the pairs that share its key
    /// (`n² / 2^(bits + 1)`).
    pub join_work: f64,
}

impl PlanOption {
    /// The plan of `r` blocks for distance `k` (with `k < r ≤ width`),
    /// weighed for `n` fingerprints. Its tables key `m = r − k` blocks; the
    /// first `f mod r` blocks are one bit longer, so a table with `j` of
    /// them has a key of `m ⌊f / r⌋ + j` bits (at most 64), and
    /// `C(long, j) · C(short, m − j)` tables have `j`.
    fn weigh(width: Width, k: u32, r: u32, n: f64) -> PlanOption {
        let f = width.bits();
        let (m, base, long) = (r - k, f / r, f % r);
        let short = r - long;
        let (mut min_key_bits, mut candidates) = (u32::MAX, 0.0);
        for j in m.saturating_sub(short)..=m.min(long) {
            let count = (binomial(long, j) * binomial(short, m - j)) as f64;
            let bits = (m * base + j).min(64);
            min_key_bits = min_key_bits.min(bits);
            candidates += count * n / 2f64.powi(bits as i32);
        }
        let tables = binomial(r, k) as usize;
        PlanOption {
            blocks: r,
            tables,
            min_key_bits,
            candidates_per_query: candidates,
            bytes_per_fingerprint: f64::from(f / 8) + 4.0 * tables as f64,
            work: tables as f64 + candidates,
            join_work: tables as f64 * n * n.max(2.0).log2() + n * candidates / 2.0,
        }
    }
}

/// The options [`TablePlan::choose`] weighed and the one it took.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanChoice {
    /// Every plan considered, by number of blocks.
    pub options: Vec<PlanOption>,
    /// The index of the chosen one in `options`.
    pub chosen: usize,
}

impl PlanChoice {
    /// The chosen plan.
    ///
    /// # Errors
    ///
    /// None in practice: the option was built from a valid plan.
    pub fn plan(&self, width: Width, k: u32) -> Result<TablePlan> {
        let blocks = self.options.get(self.chosen).map_or(k + 1, |o| o.blocks);
        TablePlan::new(width, k, blocks)
    }
}

/// How a table's key is put together: each block's bits shifted into place,
/// the first block highest, at most 64 bits in all (a block that does not
/// fit whole gives its highest bits, and later blocks are left out).
fn key_parts(blocks: &[Block], table: &[usize]) -> Vec<Part> {
    let mut parts = Vec::new();
    let mut room = 64u32;
    for &i in table {
        let Some(&block) = blocks.get(i) else {
            continue;
        };
        if room == 0 {
            break;
        }
        let len = block.len.min(room);
        // Keep the block's highest `len` bits.
        let offset = block.offset + (block.len - len);
        room -= len;
        parts.push(Part {
            offset,
            len,
            shift: room,
        });
    }
    // Keys are right-aligned: shift everything down by the unused room.
    for p in &mut parts {
        p.shift -= room;
    }
    parts
}

/// `C(n, k)`, saturating.
fn binomial(n: u32, k: u32) -> u128 {
    let k = k.min(n - k.min(n));
    (0..k).fold(1u128, |acc, i| {
        acc.saturating_mul(u128::from(n - i)) / u128::from(i + 1)
    })
}

/// Every choice of `m` of `0..n`, in lexicographic order.
fn combinations(n: usize, m: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut current: Vec<usize> = (0..m).collect();
    if m > n {
        return out;
    }
    loop {
        out.push(current.clone());
        // The rightmost position that can still move right.
        let Some(i) = (0..m).rev().find(|&i| current[i] < n - m + i) else {
            return out;
        };
        current[i] += 1;
        for j in i + 1..m {
            current[j] = current[j - 1] + 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_cover_every_bit_once() {
        for width in [Width::W64, Width::W128] {
            for k in 0..10 {
                for r in k + 1..k + 5 {
                    let plan = TablePlan::new(width, k, r).unwrap();
                    let mut next = 0;
                    for b in plan.blocks() {
                        assert_eq!(b.offset, next);
                        next += b.len;
                    }
                    assert_eq!(next, width.bits());
                    assert_eq!(plan.tables() as u128, binomial(r, k));
                }
            }
        }
    }

    #[test]
    fn options_weigh_the_plans_they_name() {
        // The arithmetic of PlanOption::weigh against the tables of each plan.
        for width in [Width::W64, Width::W128] {
            for k in 0..12 {
                for option in TablePlan::options(width, k, 1e6).unwrap() {
                    let plan = TablePlan::new(width, k, option.blocks).unwrap();
                    let bits: Vec<u32> = (0..plan.tables()).map(|t| plan.key_bits(t)).collect();
                    let candidates: f64 = bits.iter().map(|&b| 1e6 / 2f64.powi(b as i32)).sum();
                    assert_eq!(option.tables, plan.tables());
                    assert_eq!(Some(&option.min_key_bits), bits.iter().min());
                    let error = (option.candidates_per_query - candidates).abs();
                    assert!(error <= 1e-9 * candidates, "k = {k}, r = {}", option.blocks);
                }
            }
        }
    }

    #[test]
    fn counts_and_combinations() {
        assert_eq!(binomial(5, 3), 10);
        assert_eq!(binomial(6, 3), 20);
        assert_eq!(binomial(4, 0), 1);
        assert_eq!(combinations(4, 2).len(), 6);
        assert_eq!(combinations(3, 3), vec![vec![0, 1, 2]]);
        assert!(TablePlan::new(Width::W64, 3, 3).is_err());
        assert!(TablePlan::new(Width::W64, 64, 65).is_err());
        assert!(
            TablePlan::new(Width::W64, 20, 40).is_err(),
            "too many tables"
        );
    }

    #[test]
    fn keys_are_the_key_blocks() {
        let plan = TablePlan::new(Width::W64, 3, 5).unwrap();
        let x = 0xfedc_ba98_7654_3210u64;
        for t in 0..plan.tables() {
            let mut expected = 0u64;
            for &b in plan.table_blocks(t) {
                let block = plan.blocks()[b];
                expected = expected << block.len | x.field(block.offset, block.len);
            }
            assert_eq!(plan.key(t, x), expected);
        }
        // A 128-bit key longer than 64 bits keeps its first 64, and its
        // mask says which.
        let plan = TablePlan::new(Width::W128, 0, 1).unwrap();
        assert_eq!(plan.key_bits(0), 64);
        assert_eq!(plan.key(0, u128::MAX << 64 | 5), u64::MAX);
        assert_eq!(plan.mask(0), u128::MAX << 64);
        for width in [Width::W64, Width::W128] {
            let plan = TablePlan::new(width, 1, 3).unwrap();
            for t in 0..plan.tables() {
                assert_eq!(plan.mask(t).count_ones(), plan.key_bits(t));
            }
        }
    }

    #[test]
    fn the_planner_prefers_longer_keys_for_more_fingerprints() {
        let small = TablePlan::choose(Width::W64, 3, 1e4, None).unwrap();
        let large = TablePlan::choose(Width::W64, 3, 1e9, None).unwrap();
        let blocks = |c: &PlanChoice| c.options[c.chosen].blocks;
        assert!(blocks(&small) < blocks(&large));
        let tight = TablePlan::choose(Width::W64, 3, 1e9, Some(30.0)).unwrap();
        assert!(tight.options[tight.chosen].bytes_per_fingerprint <= 30.0);
        assert!(TablePlan::choose(Width::W64, 3, 1e9, Some(8.0)).is_err());
        let exact = TablePlan::choose(Width::W64, 0, 1e6, None).unwrap();
        assert_eq!(exact.options.len(), 1);
        let join = |n| {
            let c = TablePlan::choose_for_join(Width::W64, 3, n).unwrap();
            c.options[c.chosen].blocks
        };
        // Measured (examples/pairs): 10 tables join 10^8 in 28 s, 20 in 50 s.
        assert_eq!((join(1e4), join(1e7), join(1e8)), (4, 5, 5));
    }
}
