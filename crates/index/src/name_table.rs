//! A segment's table of names: the entries of a name, found without
//! reading every name, so that a store finds a stored id's entry (and so
//! its sequence number) in the segment itself rather than in a file keyed
//! by id.
//!
//! Open addressing over the names' hashes ([`NameHash`]): a name's probe
//! starts at a slot picked by its hash (scaled to the number of slots, not
//! reduced modulo it) and goes on, wrapping, to the first empty slot
//! ([`EMPTY`]). A slot holds an entry number, not the name: the reader
//! compares the entry's name, so a slot shared by two hashes costs one more
//! name read, never a wrong answer. There are [`slots_for`] `n` slots,
//! 1.5 a name (6 bytes): a lookup of a name present reads about two slots.

use crate::name_filter::NameHash;

/// A slot no entry holds: every probe ends at the first.
pub(crate) const EMPTY: u32 = u32::MAX;

/// The number of slots of a table of `names` names: half as many again,
/// and one more, so that there is always an empty slot.
pub(crate) fn slots_for(names: usize) -> usize {
    names + names / 2 + 1
}

/// A table being built, one entry at a time.
pub(crate) struct NameTableBuilder {
    slots: Vec<u32>,
}

impl NameTableBuilder {
    /// An empty table sized for `names` names.
    pub(crate) fn new(names: usize) -> NameTableBuilder {
        NameTableBuilder {
            slots: vec![EMPTY; slots_for(names)],
        }
    }

    /// Adds entry `entry`, whose name has hash `hash`. At most
    /// `names` entries are added (the builder's size).
    pub(crate) fn insert(&mut self, hash: &NameHash, entry: u32) {
        let len = self.slots.len();
        let mut at = hash.slot_of(len);
        while self.slots[at] != EMPTY {
            at = if at + 1 == len { 0 } else { at + 1 };
        }
        self.slots[at] = entry;
    }

    /// Its bytes, as a segment stores them (u32 in the machine's byte
    /// order, as the tables' slots are).
    pub(crate) fn bytes(&self) -> &[u8] {
        bytemuck::cast_slice(&self.slots)
    }
}

/// The entries the table `slots` holds for names of `hash`, in probe
/// order: those of the name sought among them, and maybe others, which
/// the caller tells apart by their names. Ends at the first empty slot,
/// or after one turn round a table with none (a damaged one).
pub(crate) fn candidates<'a>(slots: &'a [u32], hash: &NameHash) -> impl Iterator<Item = u32> + 'a {
    let len = slots.len();
    let start = if len == 0 { 0 } else { hash.slot_of(len) };
    (0..len)
        .map(move |i| slots[(start + i) % len])
        .take_while(|&entry| entry != EMPTY)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_is_among_its_names_candidates_and_others_rarely_are() {
        let n = 50_000;
        let mut builder = NameTableBuilder::new(n);
        for i in 0..n {
            builder.insert(&NameHash::of(&format!("d{i}")), i as u32);
        }
        let slots = builder.slots;
        assert_eq!(
            slots.iter().filter(|&&s| s == EMPTY).count(),
            slots.len() - n
        );
        let mut probes = 0;
        for i in 0..n {
            let found: Vec<u32> = candidates(&slots, &NameHash::of(&format!("d{i}"))).collect();
            assert!(found.contains(&(i as u32)), "d{i}");
            probes += found.iter().position(|&e| e == i as u32).unwrap() + 1;
        }
        // Linear probing at two thirds full: two slots a present name on
        // average, by the model ((1 + 1 / (1 - 2/3)) / 2).
        let mean = probes as f64 / n as f64;
        assert!((1.5..2.5).contains(&mean), "{mean}");
    }

    #[test]
    fn an_empty_table_has_one_empty_slot_and_no_candidates() {
        let builder = NameTableBuilder::new(0);
        assert_eq!(builder.slots, [EMPTY]);
        assert_eq!(candidates(&builder.slots, &NameHash::of("x")).count(), 0);
        assert_eq!(candidates(&[], &NameHash::of("x")).count(), 0);
        assert_eq!(candidates(&[0, 1], &NameHash::of("x")).count(), 2);
    }
}
