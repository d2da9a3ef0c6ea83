//! A set of dictionary prefixes, one machine word per entry.
//!
//! Every prefix of a dictionary word is a key of at most [`KEY_BITS`] bits
//! (see [`super::dictionary`] for how keys are made). Its entry says whether
//! the prefix is itself a word, and which, and whether longer words extend
//! it, so a walk along a text knows from one slot both what to record and
//! whether to go on. Slots are `u64`s in an open-addressing table with
//! linear probing, at most three fifths full: a lookup reads one cache line
//! nearly always, and eight slots share it.

/// Bits of a key.
const KEY_BITS: u32 = 42;
const KEY_MASK: u64 = (1 << KEY_BITS) - 1;
/// Bits of a word id stored plus one, so that 0 means "not a word".
const WORD_BITS: u32 = 20;
/// The largest word id an entry can hold.
#[cfg_attr(not(test), allow(dead_code))]
pub(super) const MAX_WORD: u32 = (1 << WORD_BITS) - 2;
const LONGER: u64 = 1 << 62;
const OCCUPIED: u64 = 1 << 63;

const MULTIPLIER: u64 = 0x9e37_79b9_7f4a_7c15;

/// What the dictionary knows of one prefix.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Entry(u64);

impl Entry {
    /// The id of the word that is exactly this prefix, if any.
    #[inline(always)]
    pub(super) fn word(self) -> Option<u32> {
        let stored = ((self.0 >> KEY_BITS) & ((1 << WORD_BITS) - 1)) as u32;
        stored.checked_sub(1)
    }

    /// Whether some longer word starts with this prefix.
    #[inline(always)]
    pub(super) fn has_longer(self) -> bool {
        self.0 & LONGER != 0
    }

    /// The entry stored as `bits` (what [`Entry::bits`] gave).
    pub(super) fn from_bits(bits: u64) -> Entry {
        Entry(bits)
    }
}

/// Building entries: `build.rs` and the tests.
#[cfg_attr(not(test), allow(dead_code))]
impl Entry {
    /// The entry as stored.
    pub(super) fn bits(self) -> u64 {
        self.0
    }

    /// The same entry, now also the word `id` (at most [`MAX_WORD`]).
    pub(super) fn with_word(self, id: u32) -> Entry {
        let cleared = self.0 & !(((1 << WORD_BITS) - 1) << KEY_BITS);
        Entry(cleared | (u64::from(id) + 1) << KEY_BITS)
    }

    /// The same entry, now extended by a longer word.
    pub(super) fn with_longer(self) -> Entry {
        Entry(self.0 | LONGER)
    }
}

/// Prefixes keyed by integers of [`KEY_BITS`] bits.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct PrefixTable {
    slots: Box<[u64]>,
}

/// The most a table is filled: a denser table keeps more of itself in
/// cache, a sparser one probes fewer slots.
const LOAD_NUMERATOR: usize = 3;
const LOAD_DENOMINATOR: usize = 5;

impl PrefixTable {
    /// A table that will hold up to `capacity` keys, at most three fifths full.
    pub(super) fn with_capacity(capacity: usize) -> PrefixTable {
        // One empty slot in LOAD_DENOMINATOR - LOAD_NUMERATOR at least, and
        // always one, so that every probe sequence ends.
        let len = capacity * LOAD_DENOMINATOR / LOAD_NUMERATOR + 1;
        PrefixTable {
            slots: vec![0; len].into_boxed_slice(),
        }
    }

    /// The table whose slots are `slots` (what [`PrefixTable::slots`] gave).
    pub(super) fn from_slots(slots: Box<[u64]>) -> PrefixTable {
        PrefixTable { slots }
    }

    /// Whether lookups end: some slot is empty.
    pub(super) fn is_usable(&self) -> bool {
        self.slots.iter().any(|&s| s & OCCUPIED == 0)
    }

    /// Where the probes for `key` start: the hash scaled to the table's
    /// length (multiply and shift, not a division).
    #[inline(always)]
    fn home(&self, key: u64) -> usize {
        let hash = key.wrapping_mul(MULTIPLIER);
        ((u128::from(hash) * self.slots.len() as u128) >> 64) as usize
    }

    #[inline(always)]
    fn next(&self, i: usize) -> usize {
        if i + 1 == self.slots.len() { 0 } else { i + 1 }
    }

    /// Asks the processor to fetch the cache line where a lookup of `key`
    /// starts, so that the lookup itself, a few steps later, finds it there.
    #[inline(always)]
    pub(super) fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let slot: *const u64 = &self.slots[self.home(key)];
            // SAFETY: SSE is part of the x86-64 baseline, and a prefetch
            // reads nothing the program sees; its address is in the table.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(slot.cast()) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// The slot of `key` and its entry, if the key is present.
    #[inline(always)]
    pub(super) fn find(&self, key: u64) -> Option<(u32, Entry)> {
        let mut i = self.home(key);
        loop {
            let slot = self.slots[i];
            if slot & OCCUPIED == 0 {
                return None;
            }
            if slot & KEY_MASK == key {
                return Some((i as u32, Entry(slot)));
            }
            i = self.next(i);
        }
    }
}

/// Building tables: `build.rs` and the tests.
#[cfg_attr(not(test), allow(dead_code))]
impl PrefixTable {
    /// The slots, as stored.
    pub(super) fn slots(&self) -> &[u64] {
        &self.slots
    }

    /// The slot of `key`, inserted with an empty entry if absent. `None`
    /// when the table is full, which the sizing of the tables rules out.
    pub(super) fn slot_of(&mut self, key: u64) -> Option<u32> {
        debug_assert!(key <= KEY_MASK);
        let mut i = self.home(key);
        for _ in 0..self.slots.len() {
            let slot = self.slots[i];
            if slot & OCCUPIED == 0 {
                self.slots[i] = OCCUPIED | key;
                return Some(i as u32);
            }
            if slot & KEY_MASK == key {
                return Some(i as u32);
            }
            i = self.next(i);
        }
        None
    }

    /// The entry in slot `slot`.
    pub(super) fn entry(&self, slot: u32) -> Entry {
        Entry(self.slots[slot as usize])
    }

    /// Replaces the entry in slot `slot`, keeping its key.
    pub(super) fn set_entry(&mut self, slot: u32, entry: Entry) {
        let s = &mut self.slots[slot as usize];
        *s = (*s & (OCCUPIED | KEY_MASK)) | (entry.0 & !(OCCUPIED | KEY_MASK));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn finds_what_was_inserted_and_nothing_else() {
        let mut table = PrefixTable::with_capacity(1000);
        let mut model = HashMap::new();
        for k in 0..1000u64 {
            let key = (k * 0x1_2345_6789) & KEY_MASK;
            let slot = table.slot_of(key).unwrap();
            let mut entry = table.entry(slot);
            if k % 3 == 0 {
                entry = entry.with_word(k as u32);
            }
            if k % 2 == 0 {
                entry = entry.with_longer();
            }
            table.set_entry(slot, entry);
            model.insert(key, (slot, entry));
        }
        for (&key, &(slot, entry)) in &model {
            assert_eq!(table.find(key), Some((slot, entry)));
            assert_eq!(table.slot_of(key), Some(slot));
        }
        assert_eq!(table.find(KEY_MASK), None);
        let (_, e) = table.find(0).unwrap();
        assert_eq!((e.word(), e.has_longer()), (Some(0), true));
        let e = Entry::default().with_word(MAX_WORD);
        assert_eq!((e.word(), e.has_longer()), (Some(MAX_WORD), false));
        assert_eq!(e.with_word(7).word(), Some(7));
    }
}
