//! A query over the tables of a plan, wherever their slots are: in memory
//! ([`crate::OnlineIndex`]) or in a mapped file ([`crate::Segment`]).

use crate::bits::Bits;
use crate::key_table::KeyTable;
use crate::plan::TablePlan;

/// A stored fingerprint near a query: its number and its distance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Match {
    /// Its distance from the query (first, so that matches sort by it).
    pub distance: u32,
    /// Its number in the index.
    pub id: u32,
}

/// Tables whose first slot a query prefetches (plans with more tables look
/// the rest up without).
const PREFETCHED_TABLES: usize = 32;

/// The hash of a key: 64 well-mixed bits, which pick its home slot and its
/// check bits in a [`KeyTable`].
#[inline(always)]
pub(crate) fn key_hash(key: u64) -> u64 {
    let h = (key ^ key >> 29).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^ h >> 32
}

/// What a query reads: the plan and its masks, each table's slots, and the
/// fingerprints by number.
pub(crate) struct Tables<'a, B, F> {
    pub(crate) plan: &'a TablePlan,
    pub(crate) masks: &'a [B],
    /// The slots of table `t`.
    pub(crate) slots: F,
    pub(crate) id_bits: u32,
    pub(crate) fingerprints: &'a [B],
}

impl<'a, B: Bits, F: Fn(usize) -> &'a [u32]> Tables<'a, B, F> {
    /// Every fingerprint within `k` bits of `query` for which `stored`
    /// holds, once each, by distance, then number.
    ///
    /// A fingerprint near the query may share keys with it in several
    /// tables; it is reported by the first of them only (the others test
    /// the earlier tables' masks), so no set of what was found is kept.
    pub(crate) fn search(&self, query: B, stored: impl Fn(u32) -> bool) -> Vec<Match> {
        let mut out = Vec::new();
        let table = |t: usize| KeyTable::view((self.slots)(t), self.id_bits);
        // The tables' lookups are independent: fetch all their first cache
        // lines at once, then read them.
        let mut hashes = [0u64; PREFETCHED_TABLES];
        for (t, hash) in hashes.iter_mut().enumerate().take(self.plan.tables()) {
            *hash = key_hash(self.plan.key(t, query));
            table(t).prefetch_lookup(*hash);
        }
        let k = self.plan.k();
        for t in 0..self.plan.tables() {
            let hash = match hashes.get(t) {
                Some(&hash) => hash,
                None => key_hash(self.plan.key(t, query)),
            };
            table(t).for_each(hash, |id| {
                let Some(&fp) = self.fingerprints.get(id as usize) else {
                    return;
                };
                let distance = fp.distance(query);
                // Check bits let through, rarely, a fingerprint of another
                // key: it counts only where it truly shares the key, so that
                // the first such table, and no other, reports it.
                let mask = self.masks[t];
                if distance <= k
                    && stored(id)
                    && fp.and(mask) == query.and(mask)
                    && self.masks[..t].iter().all(|&m| fp.and(m) != query.and(m))
                {
                    out.push(Match { distance, id });
                }
            });
        }
        out.sort_unstable();
        out
    }
}
