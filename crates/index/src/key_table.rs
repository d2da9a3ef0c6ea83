//! One table of the online index: 4-byte slots in an open-addressing hash
//! table.
//!
//! A slot holds a fingerprint's number in its low `id_bits` bits and, above
//! them, check bits: part of the hash of the fingerprint's key that did not
//! choose the home slot. A lookup reads the slots from the key's home until
//! an empty one and keeps those whose check bits are the key's; a slot of
//! another key may pass, and the caller's distance test drops it. So the
//! table stores no key, and an entry takes 4 bytes, 5.3 at the fill it keeps.
//!
//! Moving entries (to grow the table, or to close the gap a removal leaves)
//! needs each entry's home, which the caller computes again from the stored
//! fingerprint (`hash_of`).

/// Asks the processor to fetch the cache line holding `value` (a hint: it
/// changes no result, and does nothing where no instruction for it is used).
#[inline(always)]
pub(crate) fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        let at: *const T = value;
        // SAFETY: SSE is part of the x86-64 baseline, and a prefetch reads
        // nothing the program sees; the address is of a live reference.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(at.cast()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

/// The fill a table is built or grown to, and the most it takes, in
/// hundredths.
const TARGET_LOAD: usize = 75;
const MAX_LOAD: usize = 85;

const EMPTY: u32 = u32::MAX;

/// See the [module](self). `S` holds the slots: a `Vec` for a table that
/// changes, a slice of a mapped file for a saved one.
#[derive(Clone, Debug)]
pub(crate) struct KeyTable<S = Vec<u32>> {
    slots: S,
    len: usize,
    id_bits: u32,
}

impl<'a> KeyTable<&'a [u32]> {
    /// A view of saved slots for lookups, which do not need the count.
    #[inline(always)]
    pub(crate) fn view(slots: &'a [u32], id_bits: u32) -> KeyTable<&'a [u32]> {
        KeyTable {
            slots,
            len: 0,
            id_bits,
        }
    }

    /// The table whose slots are `slots` (as [`KeyTable::slots`] gave them)
    /// and numbers have `id_bits` bits; `None` unless both are possible.
    pub(crate) fn from_slots(slots: &'a [u32], id_bits: u32) -> Option<KeyTable<&'a [u32]>> {
        let len = slots.iter().filter(|&&s| s != EMPTY).count();
        ((16..=32).contains(&id_bits) && !slots.is_empty() && len < slots.len()).then_some(
            KeyTable {
                slots,
                len,
                id_bits,
            },
        )
    }
}

impl<S: AsRef<[u32]>> KeyTable<S> {
    /// The slots, as they are saved.
    pub(crate) fn slots(&self) -> &[u32] {
        self.slots.as_ref()
    }

    /// Bits of an entry's number.
    pub(crate) fn id_bits(&self) -> u32 {
        self.id_bits
    }

    /// Whether `n` entries fit without a regrowth.
    pub(crate) fn holds(&self, n: usize) -> bool {
        n.saturating_mul(100) <= self.slots.as_ref().len().saturating_mul(MAX_LOAD)
    }

    /// The largest number an entry can have.
    pub(crate) fn max_id(&self) -> u32 {
        // All ones is EMPTY's pattern with zero check bits.
        (u64::from(u32::MAX) >> (32 - self.id_bits)) as u32 - 1
    }

    #[inline(always)]
    fn home(&self, hash: u64) -> usize {
        (((hash >> 32) * self.slots.as_ref().len() as u64) >> 32) as usize
    }

    #[inline(always)]
    fn next(&self, i: usize) -> usize {
        if i + 1 == self.slots.as_ref().len() {
            0
        } else {
            i + 1
        }
    }

    /// The slot of `id` under `hash`: check bits, then the number.
    #[inline(always)]
    fn slot(&self, hash: u64, id: u32) -> u32 {
        let check = (hash as u32).checked_shr(self.id_bits).unwrap_or(0);
        check.checked_shl(self.id_bits).unwrap_or(0) | id
    }

    #[inline(always)]
    fn id_of(&self, slot: u32) -> u32 {
        (u64::from(slot) & ((1u64 << self.id_bits) - 1)) as u32
    }

    /// Asks the processor to fetch the cache line of `hash`'s home slot,
    /// where an insert starts.
    #[inline(always)]
    fn prefetch_home(&self, hash: u64) {
        prefetch(&self.slots.as_ref()[self.home(hash)]);
    }

    /// Asks the processor to fetch the cache lines a lookup of `hash`
    /// reads: it reads on from the home slot to the first empty one, about
    /// 8 slots at the fill a table keeps, so often into the next line.
    #[inline(always)]
    pub(crate) fn prefetch_lookup(&self, hash: u64) {
        let slots = self.slots.as_ref();
        let home = self.home(hash);
        prefetch(&slots[home]);
        if let Some(next) = slots.get(home + 16) {
            prefetch(next);
        }
    }

    /// Calls `found` with every number stored under a hash with `hash`'s
    /// home and check bits (so every one stored under `hash`, and rarely
    /// another).
    #[inline(always)]
    pub(crate) fn for_each(&self, hash: u64, mut found: impl FnMut(u32)) {
        let slots = self.slots.as_ref();
        let want = self.slot(hash, 0);
        let check_mask = self.slot(u64::MAX, 0);
        let mut i = self.home(hash);
        loop {
            let s = slots[i];
            if s == EMPTY {
                return;
            }
            if s & check_mask == want {
                found(self.id_of(s));
            }
            i = self.next(i);
        }
    }

    /// The numbers stored, in slot order.
    #[cfg(test)]
    pub(crate) fn ids(&self) -> impl Iterator<Item = u32> + '_ {
        self.slots
            .as_ref()
            .iter()
            .filter(|&&s| s != EMPTY)
            .map(|&s| self.id_of(s))
    }

    /// Bytes of the slots.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.slots.as_ref().len() * 4
    }
}

impl KeyTable {
    /// A table for about `n` entries with numbers of `id_bits` bits (16 to
    /// 32).
    pub(crate) fn new(n: usize, id_bits: u32) -> KeyTable {
        KeyTable {
            slots: vec![EMPTY; slots_for(n)],
            len: 0,
            id_bits: id_bits.clamp(16, 32),
        }
    }

    /// Adds `id` under `hash`, growing the table when it is full.
    pub(crate) fn insert(&mut self, hash: u64, id: u32, hash_of: &impl Fn(u32) -> u64) {
        if (self.len + 1) * 100 > self.slots.len() * MAX_LOAD {
            self.grow(hash_of);
        }
        self.place(self.slot(hash, id), self.home(hash));
        self.len += 1;
    }

    /// Adds every id of `ids` (a table sized for them), prefetching the
    /// home of the entry a few places ahead: filling a table is a stream of
    /// independent random writes.
    pub(crate) fn fill(&mut self, ids: impl Iterator<Item = u32>, hash_of: impl Fn(u32) -> u64) {
        const AHEAD: usize = 8;
        let mut ring = [(0u64, 0u32); AHEAD];
        let mut ids = ids;
        let mut pending = 0;
        loop {
            // Take the next id into the ring, evicting (placing) the oldest.
            let next = ids.next().map(|id| (hash_of(id), id));
            let slot = pending % AHEAD;
            if pending >= AHEAD {
                let (hash, id) = ring[slot];
                self.insert(hash, id, &hash_of);
            }
            match next {
                Some((hash, id)) => {
                    self.prefetch_home(hash);
                    ring[slot] = (hash, id);
                    pending += 1;
                }
                None => {
                    // Place what is left in the ring, oldest first.
                    // Taken so far: 0..pending; placed: 0..=pending - AHEAD.
                    let start = if pending >= AHEAD {
                        pending - AHEAD + 1
                    } else {
                        0
                    };
                    for k in start..pending {
                        let (hash, id) = ring[k % AHEAD];
                        self.insert(hash, id, &hash_of);
                    }
                    return;
                }
            }
        }
    }

    fn place(&mut self, slot: u32, home: usize) {
        let mut i = home;
        while self.slots[i] != EMPTY {
            i = self.next(i);
        }
        self.slots[i] = slot;
    }

    fn grow(&mut self, hash_of: &impl Fn(u32) -> u64) {
        let old = std::mem::replace(&mut self.slots, vec![EMPTY; slots_for(self.len + 1)]);
        for slot in old.into_iter().filter(|&s| s != EMPTY) {
            let home = self.home(hash_of(self.id_of(slot)));
            self.place(slot, home);
        }
    }

    /// Removes `id`, stored under `hash`, and moves later entries of its
    /// cluster back so that no lookup stops early.
    pub(crate) fn remove(&mut self, hash: u64, id: u32, hash_of: impl Fn(u32) -> u64) {
        let target = self.slot(hash, id);
        let mut i = self.home(hash);
        loop {
            match self.slots[i] {
                EMPTY => return,
                s if s == target => break,
                _ => i = self.next(i),
            }
        }
        self.slots[i] = EMPTY;
        self.len -= 1;
        let mut hole = i;
        let mut j = self.next(i);
        while self.slots[j] != EMPTY {
            let home = self.home(hash_of(self.id_of(self.slots[j])));
            // The entry at j stays if its home lies cyclically in (hole, j].
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
            j = self.next(j);
        }
    }
}

/// Slots for `n` entries at the target fill, at least 16.
fn slots_for(n: usize) -> usize {
    (n * 100 / TARGET_LOAD + 1).max(16)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn mix(x: u64) -> u64 {
        let h = (x ^ x >> 31).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        h ^ h >> 29
    }

    #[test]
    fn finds_inserted_numbers_through_growth_and_removal() {
        // Keys repeat (several numbers per key), as in a real table.
        let key_of = |id: u32| u64::from(id % 700);
        let hash_of = |id: u32| mix(key_of(id));
        let mut table = KeyTable::new(0, 16);
        for id in 0..5000 {
            table.insert(hash_of(id), id, &hash_of);
        }
        let mut model: HashMap<u64, Vec<u32>> = HashMap::new();
        for id in 0..5000 {
            model.entry(key_of(id)).or_default().push(id);
        }
        for id in (0..5000).step_by(3) {
            table.remove(hash_of(id), id, hash_of);
            model.get_mut(&key_of(id)).unwrap().retain(|&i| i != id);
        }
        for (key, ids) in &model {
            let mut found = Vec::new();
            table.for_each(mix(*key), |id| {
                if key_of(id) == *key {
                    found.push(id)
                }
            });
            found.sort_unstable();
            assert_eq!(&found, ids);
        }
        assert_eq!(table.ids().count(), model.values().map(Vec::len).sum());
        // Filling with prefetching gives the same lookups as inserting.
        for n in [0, 1, 7, 8, 9, 100] {
            let mut filled = KeyTable::new(n, 16);
            filled.fill(0..n as u32, hash_of);
            let mut ids: Vec<u32> = filled.ids().collect();
            ids.sort_unstable();
            assert_eq!(ids, (0..n as u32).collect::<Vec<_>>());
        }
        assert_eq!(KeyTable::new(0, 16).max_id(), 65534);
        assert_eq!(KeyTable::new(0, 32).max_id(), u32::MAX - 1);
    }
}
