//! An index that takes inserts and deletes between queries.
//!
//! Each table of the [`TablePlan`] is an open-addressing hash table of
//! 8-byte slots: 32 bits of a hash of the fingerprint's key in that table,
//! and the fingerprint's number. A query computes its key in every table,
//! reads the slots from the key's home on, and compares every fingerprint
//! whose slot carries the same key hash. The lookups of the tables do not
//! depend on each other, so the processor overlaps them.
//!
//! A fingerprint near the query may share keys with it in several tables;
//! it is reported by the first of them only (the others test the earlier
//! tables' masks), so a query keeps no set of what it found.

use rayon::prelude::*;

use crate::bits::Bits;
use crate::error::{Error, Result};
use crate::plan::TablePlan;

/// A stored fingerprint near a query: its number and its distance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Match {
    /// Its distance from the query (first, so that matches sort by it).
    pub distance: u32,
    /// The number [`OnlineIndex::insert`] gave it.
    pub id: u32,
}

/// Exact search for fingerprints within `k` bits, with inserts and deletes.
///
/// ```
/// use neardup_core::Width;
/// use neardup_index::{Match, OnlineIndex, TablePlan};
///
/// let mut index = OnlineIndex::new(TablePlan::pigeonhole(Width::W64, 3)?)?;
/// let a = index.insert(0xffff_0000_ffff_0000u64)?;
/// let b = index.insert(0xffff_0000_ffff_0003)?;
/// let near = index.query(0xffff_0000_ffff_0001);
/// assert_eq!(near, [Match { distance: 1, id: a }, Match { distance: 1, id: b }]);
/// index.remove(a);
/// assert_eq!(index.query(0xffff_0000_ffff_0001), [Match { distance: 1, id: b }]);
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
    /// [`Error::Input`] when the plan's width is not `B`'s.
    pub fn new(plan: TablePlan) -> Result<OnlineIndex<B>> {
        if plan.width() != B::WIDTH {
            return Err(Error::Input(format!(
                "the plan is for {}-bit fingerprints, the index holds {}-bit ones",
                plan.width().bits(),
                B::WIDTH.bits()
            )));
        }
        let masks = (0..plan.tables())
            .map(|t| B::from_u128(plan.mask(t)))
            .collect();
        let tables = (0..plan.tables())
            .map(|_| KeyTable::with_capacity(0))
            .collect();
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
    /// As [`OnlineIndex::new`], and [`Error::Input`] for 2³² − 1
    /// fingerprints or more.
    pub fn build(plan: TablePlan, fingerprints: &[B]) -> Result<OnlineIndex<B>> {
        let mut index = OnlineIndex::new(plan)?;
        let n = u32::try_from(fingerprints.len())
            .ok()
            .filter(|&n| n < u32::MAX)
            .ok_or_else(|| {
                Error::Input("an index holds fewer than 2^32 - 1 fingerprints".into())
            })?;
        index.fingerprints = fingerprints.to_vec();
        index.live = vec![u64::MAX; fingerprints.len().div_ceil(64)];
        if let Some(last) = index.live.last_mut()
            && n % 64 != 0
        {
            *last = (1 << (n % 64)) - 1;
        }
        index.len = fingerprints.len();
        let plan = &index.plan;
        index.tables = (0..plan.tables())
            .into_par_iter()
            .map(|t| {
                let mut table = KeyTable::with_capacity(fingerprints.len());
                for (id, &fp) in fingerprints.iter().enumerate() {
                    table.insert(key_hash(plan.key(t, fp)), id as u32);
                }
                table
            })
            .collect();
        Ok(index)
    }

    /// Stores `fingerprint` and returns its number, which queries report.
    /// It is found by the next query.
    ///
    /// # Errors
    ///
    /// [`Error::Input`] once the index has given 2³² − 1 numbers.
    pub fn insert(&mut self, fingerprint: B) -> Result<u32> {
        let id = u32::try_from(self.fingerprints.len())
            .ok()
            .filter(|&id| id < u32::MAX)
            .ok_or_else(|| {
                Error::Input("an index holds fewer than 2^32 - 1 fingerprints".into())
            })?;
        self.fingerprints.push(fingerprint);
        if id % 64 == 0 {
            self.live.push(0);
        }
        self.live[id as usize / 64] |= 1 << (id % 64);
        self.len += 1;
        for (t, table) in self.tables.iter_mut().enumerate() {
            table.insert(key_hash(self.plan.key(t, fingerprint)), id);
        }
        Ok(id)
    }

    /// Removes fingerprint `id`; false if it is not stored.
    pub fn remove(&mut self, id: u32) -> bool {
        if !self.contains(id) {
            return false;
        }
        let fp = self.fingerprints[id as usize];
        for (t, table) in self.tables.iter_mut().enumerate() {
            table.remove(key_hash(self.plan.key(t, fp)), id);
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
    pub fn query(&self, query: B) -> Vec<Match> {
        let mut out = Vec::new();
        for (t, table) in self.tables.iter().enumerate() {
            let key = key_hash(self.plan.key(t, query));
            table.for_each(key, |id| {
                let fp = self.fingerprints[id as usize];
                let distance = fp.distance(query);
                if distance <= self.plan.k()
                    && self.masks[..t].iter().all(|&m| fp.and(m) != query.and(m))
                {
                    out.push(Match { distance, id });
                }
            });
        }
        out.sort_unstable();
        out
    }

    /// [`OnlineIndex::query`] of each of `queries`, on all cores of the
    /// current rayon pool.
    pub fn query_batch(&self, queries: &[B]) -> Vec<Vec<Match>> {
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

/// The hash of a key: 64 well-mixed bits. Its high 32 are kept in the slot
/// and give the home slot, so an entry's home is known from the slot alone
/// (to grow the table and to close the gap a removal leaves).
#[inline(always)]
fn key_hash(key: u64) -> u64 {
    let h = (key ^ key >> 29).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^ h >> 32
}

/// One table: slots of `(key hash high 32 bits, number)` with linear
/// probing, at most 70% full; [`EMPTY`] marks a free slot.
#[derive(Clone, Debug)]
struct KeyTable {
    slots: Vec<u64>,
    len: usize,
}

const EMPTY: u64 = u64::MAX;

/// The home slot (before masking) of an entry or a hash: its high 32 bits.
#[inline(always)]
fn home_of_slot(s: u64) -> usize {
    (s >> 32) as usize
}

impl KeyTable {
    fn with_capacity(n: usize) -> KeyTable {
        let len = (n * 10 / 7 + 1).next_power_of_two().max(16);
        KeyTable {
            slots: vec![EMPTY; len],
            len: 0,
        }
    }

    #[inline(always)]
    fn mask(&self) -> usize {
        self.slots.len() - 1
    }

    #[inline(always)]
    fn slot(hash: u64, id: u32) -> u64 {
        (hash >> 32) << 32 | u64::from(id)
    }

    fn insert(&mut self, hash: u64, id: u32) {
        if (self.len + 1) * 10 > self.slots.len() * 7 {
            self.grow();
        }
        let mask = self.mask();
        let mut i = home_of_slot(hash) & mask;
        while self.slots[i] != EMPTY {
            i = (i + 1) & mask;
        }
        self.slots[i] = KeyTable::slot(hash, id);
        self.len += 1;
    }

    fn grow(&mut self) {
        let doubled = vec![EMPTY; self.slots.len() * 2];
        let old = std::mem::replace(&mut self.slots, doubled);
        let mask = self.mask();
        for s in old.into_iter().filter(|&s| s != EMPTY) {
            let mut i = home_of_slot(s) & mask;
            while self.slots[i] != EMPTY {
                i = (i + 1) & mask;
            }
            self.slots[i] = s;
        }
    }

    /// Removes the entry of `id` under `hash`, moving later entries of the
    /// cluster back so that no probe sequence breaks.
    fn remove(&mut self, hash: u64, id: u32) {
        let mask = self.mask();
        let target = KeyTable::slot(hash, id);
        let mut i = home_of_slot(hash) & mask;
        loop {
            match self.slots[i] {
                EMPTY => return,
                s if s == target => break,
                _ => i = (i + 1) & mask,
            }
        }
        self.slots[i] = EMPTY;
        self.len -= 1;
        let mut hole = i;
        let mut j = (i + 1) & mask;
        while self.slots[j] != EMPTY {
            let home = home_of_slot(self.slots[j]) & mask;
            // The entry at j may move to the hole if its home is not in
            // (hole, j], cyclically.
            let stays = if hole <= j {
                hole < home && home <= j
            } else {
                hole < home || home <= j
            };
            if !stays {
                self.slots[hole] = self.slots[j];
                self.slots[j] = EMPTY;
                hole = j;
            }
            j = (j + 1) & mask;
        }
    }

    /// Calls `found` with the number of every entry whose key hash is
    /// `hash`'s.
    #[inline(always)]
    fn for_each(&self, hash: u64, mut found: impl FnMut(u32)) {
        let mask = self.mask();
        let want = hash >> 32;
        let mut i = home_of_slot(hash) & mask;
        loop {
            let s = self.slots[i];
            if s == EMPTY {
                return;
            }
            if s >> 32 == want {
                found(s as u32);
            }
            i = (i + 1) & mask;
        }
    }

    fn memory_bytes(&self) -> usize {
        self.slots.capacity() * 8
    }
}
