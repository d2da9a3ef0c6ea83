//! A query over the tables of a plan, wherever their slots are: in memory
//! ([`crate::OnlineIndex`]) or in a mapped file ([`crate::Segment`]).

use crate::bits::Bits;
use crate::key_table::{KeyTable, prefetch};
use crate::plan::TablePlan;

/// A stored fingerprint near a query: its distance and its id. An index
/// names its fingerprints by number (`Neighbour<u32>`, the default); a
/// store names its documents by their ids (`Neighbour<String>`). A
/// neighbour is found by distance alone; one that the rule's verification
/// passed as well is a `neardup_store::Duplicate`.
///
/// ```
/// use neardup_index::Neighbour;
///
/// let mut found = vec![Neighbour { distance: 2, id: 7 }, Neighbour { distance: 1, id: 9 }];
/// found.sort();
/// assert_eq!(found[0].id, 9, "nearest first");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Neighbour<I = u32> {
    /// Its distance from the query (first, so that neighbours sort by it).
    pub distance: u32,
    /// Its number in the index, or its document's id in a store.
    pub id: I,
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
    pub(crate) fn search(&self, query: B, stored: impl Fn(u32) -> bool) -> Vec<Neighbour> {
        let mut out = Vec::new();
        let table = |t: usize| KeyTable::view((self.slots)(t), self.id_bits);
        // The tables' lookups are independent: fetch all their first cache
        // lines at once, then read them.
        let mut hashes = [0u64; PREFETCHED_TABLES];
        for (t, hash) in hashes.iter_mut().enumerate().take(self.plan.tables()) {
            *hash = key_hash(self.plan.key(t, query));
            table(t).prefetch_lookup(*hash);
        }
        // Then each table's candidates, their fingerprints fetched as they
        // are found and read once all are asked for: a candidate's
        // fingerprint is a random read too, and checking each as it comes
        // would wait for them one after another.
        let mut candidates = Candidates::new();
        for t in 0..self.plan.tables() {
            let hash = match hashes.get(t) {
                Some(&hash) => hash,
                None => key_hash(self.plan.key(t, query)),
            };
            table(t).for_each(hash, |id| {
                let Some(fp) = self.fingerprints.get(id as usize) else {
                    return;
                };
                prefetch(fp);
                if let Some((t, id)) = candidates.push(t, id) {
                    self.check(query, t, id, &stored, &mut out);
                }
            });
        }
        for &(t, id) in candidates.held() {
            self.check(query, t as usize, id, &stored, &mut out);
        }
        out.sort_unstable();
        out
    }

    /// Adds candidate `id` of table `t` to `out` if it is within `k` bits
    /// of `query`, stored, and not found by an earlier table.
    #[inline(always)]
    fn check(
        &self,
        query: B,
        t: usize,
        id: u32,
        stored: impl Fn(u32) -> bool,
        out: &mut Vec<Neighbour>,
    ) {
        let Some(&fp) = self.fingerprints.get(id as usize) else {
            return;
        };
        let distance = fp.distance(query);
        // Check bits let through, rarely, a fingerprint of another key: it
        // counts only where it truly shares the key, so that the first such
        // table, and no other, reports it.
        let mask = self.masks[t];
        if distance <= self.plan.k()
            && stored(id)
            && fp.and(mask) == query.and(mask)
            && self.masks[..t].iter().all(|&m| fp.and(m) != query.and(m))
        {
            out.push(Neighbour { distance, id });
        }
    }
}

/// The candidates a query holds before checking them: up to
/// `HELD_CANDIDATES`, on the stack; past that, each is checked as it
/// comes.
struct Candidates {
    /// Each candidate's table (fewer than [`crate::MAX_TABLES`]) and number.
    held: [(u32, u32); HELD_CANDIDATES],
    len: usize,
}

/// Candidates held before checking (a query on one segment of 10⁷ has
/// about 2.5, on one of 10⁸ about 15). Few and small: the array is made for
/// every segment a query searches, and at 64 of `(usize, u32)` its making
/// and moving took 2% of a query of 7 segments.
const HELD_CANDIDATES: usize = 32;

impl Candidates {
    fn new() -> Candidates {
        Candidates {
            held: [(0, 0); HELD_CANDIDATES],
            len: 0,
        }
    }

    /// Holds candidate `id` of table `t`, or gives it back when full.
    #[inline(always)]
    fn push(&mut self, t: usize, id: u32) -> Option<(usize, u32)> {
        match self.held.get_mut(self.len) {
            Some(slot) => {
                *slot = (t as u32, id);
                self.len += 1;
                None
            }
            None => Some((t, id)),
        }
    }

    fn held(&self) -> &[(u32, u32)] {
        &self.held[..self.len]
    }
}
