//! An index that takes inserts and deletes between queries.
//!
//! Each table of the [`TablePlan`] is a [`KeyTable`]: an open-addressing
//! hash table of 4-byte slots holding a fingerprint's number and check bits
//! of its key's hash. A query computes its key in every table, reads the
//! slots from the key's home on, and compares the fingerprints whose check
//! bits match. The lookups of the tables do not depend on each other, so the
//! processor overlaps them. Memory is the fingerprints and about 5.3 bytes per table
//! per fingerprint.
//!
//! A fingerprint near the query may share keys with it in several tables;
//! it is reported by the first of them only (the others test the earlier
//! tables' masks), so a query keeps no set of what it found.

use rayon::prelude::*;

use crate::bits::Bits;
use crate::error::{Error, Result};
use crate::key_table::KeyTable;
use crate::plan::TablePlan;
use crate::query::{Neighbour, Tables, key_hash};

/// The fewest fingerprints whose tables are filled on rayon's pool. Fewer
/// fill in well under a millisecond on the calling thread, where handing
/// them to the pool costs more than it saves: a store's writer makes a
/// small index for each group commit of more than 64 writes, and then
/// waited for pool threads asleep or busy, while those it woke spun for
/// work on the cores it needed.
const PARALLEL_FILL: usize = 1 << 14;

/// Exact search for fingerprints within `k` bits, with inserts and deletes.
///
/// ```
/// use neardup_core::Width;
/// use neardup_index::{Neighbour, OnlineIndex, TablePlan};
///
/// let mut index = OnlineIndex::new(TablePlan::pigeonhole(Width::W64, 3)?)?;
/// let a = index.insert(0xffff_0000_ffff_0000u64)?;
/// let b = index.insert(0xffff_0000_ffff_0003)?;
/// let near = index.query(0xffff_0000_ffff_0001);
/// assert_eq!(near, [Neighbour { distance: 1, id: a }, Neighbour { distance: 1, id: b }]);
/// index.remove(a);
/// assert_eq!(index.query(0xffff_0000_ffff_0001), [Neighbour { distance: 1, id: b }]);
/// # Ok::<(), neardup_index::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct OnlineIndex<B> {
    plan: TablePlan,
    masks: Vec<B>,
    fingerprints: Vec<B>,
    /// Bit `i` set when fingerprint `i` is stored (not removed).
    live: Vec<u64>,
    len: usize,
    tables: Vec<KeyTable>,
}

impl<B: Bits> OnlineIndex<B> {
    /// An empty index searching within `plan.k()` bits with `plan`'s tables.
    ///
    /// # Errors
    ///
    /// [`Error::WidthMismatch`] when the plan's width is not `B`'s.
    pub fn new(plan: TablePlan) -> Result<OnlineIndex<B>> {
        if plan.width() != B::WIDTH {
            return Err(Error::WidthMismatch {
                plan_bits: plan.width().bits(),
                bits: B::WIDTH.bits(),
            });
        }
        let masks = (0..plan.tables())
            .map(|t| B::from_u128(plan.mask(t)))
            .collect();
        let tables = (0..plan.tables()).map(|_| KeyTable::new(0, 16)).collect();
        Ok(OnlineIndex {
            plan,
            masks,
            fingerprints: Vec::new(),
            live: Vec::new(),
            len: 0,
            tables,
        })
    }

    /// An index of `fingerprints`, numbered from 0 in order, its tables
    /// filled in parallel.
    ///
    /// # Errors
    ///
    /// As [`OnlineIndex::new`], and [`Error::TooManyFingerprints`] for 2³² − 1
    /// fingerprints or more.
    pub fn build(plan: TablePlan, fingerprints: &[B]) -> Result<OnlineIndex<B>> {
        let mut index = OnlineIndex::new(plan)?;
        let n = u32::try_from(fingerprints.len())
            .ok()
            .filter(|&n| n < u32::MAX)
            .ok_or(Error::TooManyFingerprints {
                count: fingerprints.len(),
            })?;
        index.fingerprints = fingerprints.to_vec();
        index.live = vec![u64::MAX; fingerprints.len().div_ceil(64)];
        if let Some(last) = index.live.last_mut()
            && n % 64 != 0
        {
            *last = (1 << (n % 64)) - 1;
        }
        index.len = fingerprints.len();
        index.tables = index.fill_tables(id_bits_for(n), index.len);
        Ok(index)
    }

    /// Makes room for `additional` more fingerprints now: the tables are
    /// sized for them and their numbers given the bits, so that no insert
    /// until then regrows the tables. A regrowth moves every entry, a pause
    /// that lengthens as the index grows; an index that takes a stream of
    /// inserts up to a known size (a store's recent documents, up to a
    /// flush) reserves it once.
    ///
    /// ```
    /// use neardup_core::Width;
    /// use neardup_index::{OnlineIndex, TablePlan};
    ///
    /// let mut index = OnlineIndex::<u64>::new(TablePlan::pigeonhole(Width::W64, 3)?)?;
    /// index.reserve(1000);
    /// let before = index.memory_bytes();
    /// for i in 0..1000u64 {
    ///     index.insert(i.wrapping_mul(0x9e37_79b9_7f4a_7c15))?;
    /// }
    /// assert_eq!(index.memory_bytes(), before);
    /// # Ok::<(), neardup_index::Error>(())
    /// ```
    pub fn reserve(&mut self, additional: usize) {
        let ids = self.fingerprints.len().saturating_add(additional);
        let entries = self.len.saturating_add(additional);
        let id_bits = id_bits_for(u32::try_from(ids).unwrap_or(u32::MAX));
        let fits = self
            .tables
            .first()
            .is_some_and(|t| t.id_bits() >= id_bits && t.holds(entries));
        if !fits {
            self.tables = self.fill_tables(id_bits, entries);
        }
        self.fingerprints
            .reserve(ids.saturating_sub(self.fingerprints.len()));
        self.live
            .reserve(ids.div_ceil(64).saturating_sub(self.live.len()));
    }

    /// Stores `fingerprint` and returns its number, which queries report.
    /// It is found by the next query.
    ///
    /// # Errors
    ///
    /// [`Error::TooManyFingerprints`] once the index has given 2³² − 1
    /// numbers.
    pub fn insert(&mut self, fingerprint: B) -> Result<u32> {
        let id = u32::try_from(self.fingerprints.len())
            .ok()
            .filter(|&id| id < u32::MAX)
            .ok_or(Error::TooManyFingerprints {
                count: self.fingerprints.len() + 1,
            })?;
        self.fingerprints.push(fingerprint);
        if id % 64 == 0 {
            self.live.push(0);
        }
        self.live[id as usize / 64] |= 1 << (id % 64);
        self.len += 1;
        if self.tables.first().is_some_and(|t| id > t.max_id()) {
            // Numbers outgrew the slots: more bits for them, fewer check bits.
            self.tables = self.fill_tables(id_bits_for(id.saturating_mul(16)), self.len);
            return Ok(id);
        }
        let (plan, fps) = (&self.plan, &self.fingerprints);
        for (t, table) in self.tables.iter_mut().enumerate() {
            let hash_of = |i: u32| key_hash(plan.key(t, fps[i as usize]));
            table.insert(hash_of(id), id, &hash_of);
        }
        Ok(id)
    }

    /// Removes fingerprint `id`; false if it is not stored.
    pub fn remove(&mut self, id: u32) -> bool {
        if !self.contains(id) {
            return false;
        }
        let (plan, fps) = (&self.plan, &self.fingerprints);
        for (t, table) in self.tables.iter_mut().enumerate() {
            let hash_of = |i: u32| key_hash(plan.key(t, fps[i as usize]));
            table.remove(hash_of(id), id, hash_of);
        }
        self.live[id as usize / 64] &= !(1 << (id % 64));
        self.len -= 1;
        true
    }

    /// Whether fingerprint `id` is stored.
    pub fn contains(&self, id: u32) -> bool {
        self.live
            .get(id as usize / 64)
            .is_some_and(|w| w >> (id % 64) & 1 == 1)
    }

    /// The stored fingerprint `id`.
    pub fn get(&self, id: u32) -> Option<B> {
        self.contains(id).then(|| self.fingerprints[id as usize])
    }

    /// Every stored fingerprint within `k` bits of `query`, once each, by
    /// distance, then number.
    pub fn query(&self, query: B) -> Vec<Neighbour> {
        let tables = Tables {
            plan: &self.plan,
            masks: &self.masks,
            slots: |t: usize| self.tables[t].slots(),
            id_bits: self.tables.first().map_or(16, KeyTable::id_bits),
            fingerprints: &self.fingerprints,
        };
        tables.search(query, |id| self.contains(id))
    }

    /// [`OnlineIndex::query`] of each of `queries`, on all cores of the
    /// current rayon pool.
    pub fn query_batch(&self, queries: &[B]) -> Vec<Vec<Neighbour>> {
        queries.par_iter().map(|&q| self.query(q)).collect()
    }

    /// The number of stored fingerprints.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no fingerprint is stored.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The plan of the tables.
    pub fn plan(&self) -> &TablePlan {
        &self.plan
    }

    /// Tables of every stored fingerprint, their numbers of `id_bits` bits,
    /// sized for `entries`, filled in parallel when there are
    /// [`PARALLEL_FILL`] or more.
    fn fill_tables(&self, id_bits: u32, entries: usize) -> Vec<KeyTable> {
        let (plan, fps) = (&self.plan, &self.fingerprints);
        let fill = |t: usize| {
            let hash_of = |i: u32| key_hash(plan.key(t, fps[i as usize]));
            let mut table = KeyTable::new(entries.max(self.len), id_bits);
            table.fill(
                (0..fps.len() as u32).filter(|&id| self.contains(id)),
                hash_of,
            );
            table
        };
        match self.len >= PARALLEL_FILL {
            true => (0..plan.tables()).into_par_iter().map(fill).collect(),
            false => (0..plan.tables()).map(fill).collect(),
        }
    }

    /// Bytes of memory the index holds: fingerprints, the live set and the
    /// tables' slots.
    pub fn memory_bytes(&self) -> usize {
        self.fingerprints.capacity() * std::mem::size_of::<B>()
            + self.live.capacity() * 8
            + self
                .tables
                .iter()
                .map(KeyTable::memory_bytes)
                .sum::<usize>()
    }
}

/// Bits for numbers up to `n`: at least 16, and room to grow by half.
pub(crate) fn id_bits_for(n: u32) -> u32 {
    let n = u64::from(n) + u64::from(n / 2) + 2;
    (64 - n.leading_zeros()).clamp(16, 32)
}
