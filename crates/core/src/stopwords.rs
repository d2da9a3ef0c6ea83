//! Stop words: function words left out of the features.
//!
//! Words like "the" and "的" occur in almost every text of their language.
//! As features they push the same bits the same way in every fingerprint,
//! which makes unrelated texts look closer than they are. Two lists ship
//! with neardup (`data/stopwords/en.txt`, `zh.txt`); callers may give their
//! own.

use crate::error::{Error, Result};
use crate::packed::{self, head, key, mix};
use crate::segment::Token;
use crate::settings::digest_of;

/// A set of stop words.
///
/// A word of at most 15 bytes is matched by its key: its bytes packed into
/// a `u128` with the length in the top byte. The keys sit in a cuckoo table
/// (each key in one of two slots chosen by two hashes), so a lookup reads
/// two slots and compares: two multiplications, no pass over the bytes, no
/// probing loop whose length varies from word to word. Longer words (none in
/// the shipped lists) are kept sorted apart.
///
/// ```
/// use neardup_core::StopWords;
///
/// let stop = StopWords::english();
/// assert!(stop.contains("the") && !stop.contains("cat"));
/// let mine = StopWords::from_lines("# comment\nfoo\n")?;
/// assert!(mine.contains("foo"));
/// # Ok::<(), neardup_core::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct StopWords {
    words: Vec<String>,
    /// The cuckoo table of the short words' keys (0 marks an empty slot).
    slots: Vec<u128>,
    /// The shift that takes a slot index from the top bits of a hash.
    shift: u32,
    /// Keys that found no slot, sorted (empty but for contrived lists).
    stash: Vec<u128>,
    /// The words longer than [`packed::MAX_LEN`] bytes, sorted.
    long: Vec<Vec<u8>>,
    /// The digest of the text the list was read from, which names it in
    /// [`crate::FingerprintSettings`].
    digest: u128,
}

const EN: &str = include_str!("../data/stopwords/en.txt");
const ZH: &str = include_str!("../data/stopwords/zh.txt");

impl StopWords {
    /// The English list shipped with neardup.
    pub fn english() -> StopWords {
        StopWords::from_words(list(EN), digest_of(EN))
    }

    /// The Chinese list shipped with neardup.
    pub fn chinese() -> StopWords {
        StopWords::from_words(list(ZH), digest_of(ZH))
    }

    /// The English and Chinese lists together.
    pub fn english_and_chinese() -> StopWords {
        StopWords::from_words(list(EN).chain(list(ZH)), digest_of(&[EN, ZH].concat()))
    }

    /// A list in the shipped format: one word per line; blank lines and
    /// lines starting with `#` are skipped. Words are normalised
    /// ([`crate::normalize`]) so that they match normalised tokens.
    ///
    /// # Errors
    ///
    /// [`Error::Table`] when a line holds more than one word.
    pub fn from_lines(text: &str) -> Result<StopWords> {
        let mut words = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if line.split_whitespace().count() > 1 {
                return Err(Error::Table {
                    table: "stop words",
                    line: i + 1,
                    reason: format!("{line:?} has spaces; put one word per line"),
                });
            }
            words.push(crate::normalize(line));
        }
        Ok(StopWords::from_words(
            words.iter().map(String::as_str),
            digest_of(text),
        ))
    }

    fn from_words<'a>(words: impl Iterator<Item = &'a str>, digest: u128) -> StopWords {
        // No token is empty, so an empty word (a line that normalises to
        // nothing) could never match.
        let mut list: Vec<String> = words
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect();
        list.sort();
        list.dedup();
        let (short, long): (Vec<&String>, Vec<&String>) =
            list.iter().partition(|w| w.len() <= packed::MAX_LEN);
        let keys: Vec<u128> = short
            .iter()
            .filter_map(|w| key(w.as_bytes(), head(w.as_bytes())))
            .collect();
        let (slots, shift, stash) = cuckoo(&keys);
        StopWords {
            slots,
            shift,
            stash,
            long: long.iter().map(|w| w.as_bytes().to_vec()).collect(),
            words: list,
            digest,
        }
    }

    /// How [`crate::FingerprintSettings`] names the list: the digest of
    /// the text it was read from.
    pub(crate) fn digest(&self) -> u128 {
        self.digest
    }

    /// The number of words.
    pub fn len(&self) -> usize {
        self.words.len()
    }

    /// Whether the list is empty.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// Whether `word` (normalised) is a stop word.
    pub fn contains(&self, word: &str) -> bool {
        self.contains_head(word.as_bytes(), head(word.as_bytes()))
    }

    /// Whether `token` is a stop word.
    #[inline]
    pub(crate) fn contains_token(&self, token: &Token<'_>) -> bool {
        self.contains_head(token.bytes, token.head)
    }

    #[inline(always)]
    fn contains_head(&self, word: &[u8], head: u128) -> bool {
        let Some(key) = key(word, head) else {
            return self.contains_long(word);
        };
        self.contains_key(key)
    }

    #[inline(always)]
    fn contains_key(&self, key: u128) -> bool {
        let (a, b) = slots_of(key, self.shift);
        // Both slots exist: `slots` has 2^(64 - shift) of them.
        let hit = (self.slots.get(a) == Some(&key)) | (self.slots.get(b) == Some(&key));
        hit || (!self.stash.is_empty() && self.in_stash(key))
    }

    #[cold]
    fn in_stash(&self, key: u128) -> bool {
        self.stash.binary_search(&key).is_ok()
    }

    #[cold]
    fn contains_long(&self, word: &[u8]) -> bool {
        self.long.binary_search_by(|w| w[..].cmp(word)).is_ok()
    }
}

/// The two slots where `key` may sit, from the top bits of two
/// multiplicative hashes.
#[inline(always)]
fn slots_of(key: u128, shift: u32) -> (usize, usize) {
    (
        (mix(key, 0x9e37_79b9_7f4a_7c15) >> shift) as usize,
        (mix(key, 0xc2b2_ae3d_27d4_eb4f) >> shift) as usize,
    )
}

/// A cuckoo table holding `keys` (distinct and non-zero), its shift, and
/// the stash of keys that found no slot: at least four slots per key,
/// doubled (at most three times) while more than a few keys are left over.
/// Keys whose hashes coincide can never all be placed, so the stash, not
/// endless growth, is where they end up.
fn cuckoo(keys: &[u128]) -> (Vec<u128>, u32, Vec<u128>) {
    let first = (keys.len() * 4)
        .next_power_of_two()
        .max(16)
        .trailing_zeros();
    let mut bits = first;
    loop {
        let shift = 64 - bits;
        let mut slots = vec![0u128; 1 << bits];
        let mut stash: Vec<u128> = keys
            .iter()
            .filter_map(|&k| place(&mut slots, k, shift))
            .collect();
        if stash.len() <= 4 || bits == first + 3 {
            stash.sort_unstable();
            return (slots, shift, stash);
        }
        bits += 1;
    }
}

/// Puts `key` in one of its slots, moving the keys in its way to their
/// other slots; when that goes on for too long, the key left in hand, which
/// the caller keeps aside.
fn place(slots: &mut [u128], mut key: u128, shift: u32) -> Option<u128> {
    let (mut slot, _) = slots_of(key, shift);
    for _ in 0..64 {
        let (a, b) = slots_of(key, shift);
        if slots[a] == 0 {
            slots[a] = key;
            return None;
        }
        if slots[b] == 0 {
            slots[b] = key;
            return None;
        }
        // Evict from the slot the key did not just come from.
        slot = if slot == a { b } else { a };
        std::mem::swap(&mut slots[slot], &mut key);
    }
    Some(key)
}

fn list(text: &str) -> impl Iterator<Item = &str> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashSet;

    proptest! {
        #[test]
        fn equals_a_set(words in proptest::collection::vec("[ab\u{e9}]{1,9}", 0..400), probes in proptest::collection::vec("[ab\u{e9}]{1,9}", 0..50)) {
            let stop = StopWords::from_words(words.iter().map(String::as_str), 0);
            let set: HashSet<&str> = words.iter().map(String::as_str).collect();
            for w in words.iter().chain(&probes) {
                prop_assert_eq!(stop.contains(w), set.contains(w.as_str()), "{:?}", w);
            }
        }
    }

    #[test]
    fn shipped_lists() {
        let both = StopWords::english_and_chinese();
        assert!(both.contains("the") && both.contains("的") && both.contains("我们"));
        assert!(!both.contains("飞碟") && !both.contains("theory"));
        assert!(StopWords::english().len() > 100);
        assert!(StopWords::chinese().len() > 100);
    }

    #[test]
    fn rejects_two_words_on_a_line() {
        let err = StopWords::from_lines("a\nb c\n").unwrap_err();
        assert!(err.to_string().contains("line 2"), "{err}");
    }

    #[test]
    fn keys_with_equal_hashes_are_all_found() {
        // Every key folds to the same 64 bits, so all share their two slots.
        let keys: Vec<u128> = (1..40u64)
            .map(|hi| ((hi as u128) << 64) | u128::from(0x1234 ^ hi.rotate_left(29)))
            .collect();
        let (slots, shift, stash) = cuckoo(&keys);
        assert!(slots.len() <= 1 << 12, "{} slots", slots.len());
        let stop = StopWords {
            words: Vec::new(),
            slots,
            shift,
            stash,
            long: Vec::new(),
            digest: 0,
        };
        assert!(keys.iter().all(|&k| stop.contains_key(k)));
        assert!(!stop.contains_key(0x1234_5678));
    }

    #[test]
    fn long_and_near_words() {
        let stop =
            StopWords::from_lines("pneumonoultramicroscopic\nabcdefghijklmnop\nab\n").unwrap();
        assert!(stop.contains("pneumonoultramicroscopic") && stop.contains("abcdefghijklmnop"));
        assert!(stop.contains("ab"));
        for near in [
            "pneumonoultramicroscopi",
            "abcdefghijklmno",
            "abcdefghijklmnopq",
            "a",
            "ab\0",
            "b",
        ] {
            assert!(!stop.contains(near), "{near:?}");
        }
    }

    #[test]
    fn own_lists_are_normalised() {
        assert!(StopWords::from_lines("ＴＨＥ").unwrap().contains("the"));
        assert!(StopWords::from_lines("").unwrap().is_empty());
    }
}
