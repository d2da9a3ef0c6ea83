//! Short words as integers.
//!
//! Most words are short: English ones a few letters, Chinese ones two or
//! three characters of three bytes. A word of at most [`MAX_LEN`] bytes
//! packed into a `u128` (its bytes little-endian, its length in the top
//! byte) is a key that is compared in two instructions and hashed with one
//! multiplication, where a `&[u8]` key costs a hash over its bytes, a
//! pointer to follow and a `memcmp`. Stop words and IDF tables look words up
//! this way, once per token.

use std::collections::HashMap;

use crate::hash::TextKeyBuild;

/// The longest word that has a key.
pub(crate) const MAX_LEN: usize = 15;

/// The first 16 bytes of `bytes` as a little-endian `u128`, zero after the
/// end of a shorter one.
pub(crate) fn head(bytes: &[u8]) -> u128 {
    let mut window = [0u8; 16];
    let n = bytes.len().min(16);
    window[..n].copy_from_slice(&bytes[..n]);
    u128::from_le_bytes(window)
}

/// The key of a word of at most [`MAX_LEN`] bytes whose head is `head`
/// (words longer than that have none).
#[inline(always)]
pub(crate) fn key(word: &[u8], head: u128) -> Option<u128> {
    (word.len() <= MAX_LEN).then_some(head | (word.len() as u128) << 120)
}

/// The bytes of the word whose key is `key`.
fn word_of(key: u128) -> Vec<u8> {
    let len = (key >> 120) as usize;
    key.to_le_bytes()[..len].to_vec()
}

/// A multiplicative hash of a key, good in its top bits.
#[inline(always)]
pub(crate) fn mix(key: u128, multiplier: u64) -> u64 {
    ((key as u64) ^ ((key >> 64) as u64).rotate_left(29)).wrapping_mul(multiplier)
}

const MULTIPLIER: u64 = 0x9e37_79b9_7f4a_7c15;

/// A map from words to values: short words by key in one flat table with
/// linear probing (at most half full), longer ones in a hash map.
#[derive(Clone, Debug)]
pub(crate) struct WordMap<V> {
    /// `(key, value)`; key 0 (no word has it) marks an empty slot.
    slots: Vec<(u128, V)>,
    shift: u32,
    short_len: usize,
    long: HashMap<Box<[u8]>, V, TextKeyBuild>,
}

impl<V: Copy + Default> WordMap<V> {
    /// A map of `entries`; a word given twice keeps its last value.
    pub(crate) fn new<'a>(entries: impl IntoIterator<Item = (&'a [u8], V)>) -> WordMap<V> {
        let mut short = HashMap::<u128, V>::new();
        let mut long = HashMap::default();
        for (word, value) in entries {
            match key(word, head(word)) {
                Some(k) => short.insert(k, value),
                None => long.insert(Box::from(word), value),
            };
        }
        let bits = (short.len() * 2)
            .next_power_of_two()
            .max(16)
            .trailing_zeros();
        let shift = 64 - bits;
        let mask = (1usize << bits) - 1;
        let mut slots = vec![(0u128, V::default()); 1 << bits];
        for (k, value) in &short {
            let mut slot = (mix(*k, MULTIPLIER) >> shift) as usize;
            while slots[slot].0 != 0 {
                slot = (slot + 1) & mask;
            }
            slots[slot] = (*k, *value);
        }
        WordMap {
            slots,
            shift,
            short_len: short.len(),
            long,
        }
    }

    /// The value of `word`, whose head is `head`.
    #[inline]
    pub(crate) fn get(&self, word: &[u8], head: u128) -> Option<V> {
        let Some(k) = key(word, head) else {
            return self.long.get(word).copied();
        };
        let mask = self.slots.len() - 1;
        let mut slot = (mix(k, MULTIPLIER) >> self.shift) as usize;
        loop {
            let (found, value) = *self.slots.get(slot)?;
            if found == k {
                return Some(value);
            }
            if found == 0 {
                return None;
            }
            slot = (slot + 1) & mask;
        }
    }

    /// The number of words.
    pub(crate) fn len(&self) -> usize {
        self.short_len + self.long.len()
    }

    /// Every word with its value, in no particular order.
    pub(crate) fn entries(&self) -> impl Iterator<Item = (Vec<u8>, V)> + '_ {
        self.slots
            .iter()
            .filter(|(k, _)| *k != 0)
            .map(|(k, v)| (word_of(*k), *v))
            .chain(self.long.iter().map(|(w, v)| (w.to_vec(), *v)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn equals_a_hash_map(
            words in proptest::collection::vec("[ab\u{e9}\u{4e2d}]{1,8}", 0..300),
            probes in proptest::collection::vec("[ab\u{e9}\u{4e2d}]{1,8}", 0..50),
        ) {
            let reference: HashMap<&str, usize> =
                words.iter().enumerate().map(|(i, w)| (w.as_str(), i)).collect();
            let map = WordMap::new(words.iter().enumerate().map(|(i, w)| (w.as_bytes(), i)));
            prop_assert_eq!(map.len(), reference.len());
            for w in words.iter().chain(&probes) {
                prop_assert_eq!(map.get(w.as_bytes(), head(w.as_bytes())), reference.get(w.as_str()).copied());
            }
            let mut listed: Vec<(Vec<u8>, usize)> = map.entries().collect();
            listed.sort();
            let mut want: Vec<(Vec<u8>, usize)> =
                reference.iter().map(|(w, i)| (w.as_bytes().to_vec(), *i)).collect();
            want.sort();
            prop_assert_eq!(listed, want);
        }
    }
}
