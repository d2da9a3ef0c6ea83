//! jieba's dictionary, laid out for finding every word that starts at a
//! character.
//!
//! The words and their frequencies are jieba's `dict.txt` (MIT) as
//! `jieba-rs` 0.11.0 embeds it, shipped in `data/jieba_dict.txt.gz` without
//! its part-of-speech tags. Its 349,045 words use 12,045 distinct
//! characters, all in the Basic Multilingual Plane, so each character gets a
//! 14-bit id and a prefix of up to three characters packs into one key:
//!
//! - one character: an array indexed by the character's id;
//! - two and three characters: a [`PrefixTable`] each, keyed by the packed
//!   ids. Their keys do not depend on each other, so the processor looks up
//!   both at once;
//! - four and more (about 100,000 prefixes, rarely reached): one more table,
//!   keyed by the slot of the prefix one character shorter and the next id.

use std::io::Read;

use super::prefix_table::{Entry, MAX_WORD, PrefixTable};
use crate::compact::CompactF64s;

const JIEBA_DICT_GZ: &[u8] = include_bytes!("../../../data/jieba_dict.txt.gz");

/// Bits of a character id.
pub(super) const CHAR_BITS: u32 = 14;
/// The character id that no dictionary character has.
pub(super) const NO_CHAR: u16 = 0;
const MAX_CHARS: usize = (1 << CHAR_BITS) - 1;

/// The dictionary: which prefixes exist, which are words, and each word's
/// log-probability.
#[derive(Debug)]
pub(crate) struct Dictionary {
    /// Id of every BMP character, [`NO_CHAR`] for one in no word.
    char_ids: Box<[u16]>,
    /// One-character prefixes, by character id.
    first: Box<[Entry]>,
    second: PrefixTable,
    third: PrefixTable,
    /// Four characters and more: keyed by [`deeper_key`].
    deeper: PrefixTable,
    /// `ln(freq) - ln(total)` of every word, by word id: what a word adds to
    /// a route's log-probability.
    log_probs: CompactF64s,
    /// What a character in no word adds: `ln(1) - ln(total)`.
    unknown_log_prob: f64,
    /// Every word, back to back, in order of id.
    text: Box<str>,
    /// Where each word ends in `text`.
    ends: Box<[u32]>,
}

/// Words as read, before the tables are built.
struct Words {
    /// Character ids and frequency of each word.
    words: Vec<(Vec<u16>, u64)>,
    text: String,
    ends: Vec<u32>,
    /// Id of every BMP character, [`NO_CHAR`] for one in no word.
    char_ids: Box<[u16]>,
    /// Distinct characters.
    chars: usize,
}

impl Default for Words {
    fn default() -> Words {
        Words {
            words: Vec::new(),
            text: String::new(),
            ends: Vec::new(),
            char_ids: vec![NO_CHAR; 0x1_0000].into_boxed_slice(),
            chars: 0,
        }
    }
}

/// The key of a two-character prefix.
#[inline(always)]
pub(super) fn second_key(a: u16, b: u16) -> u64 {
    u64::from(a) << CHAR_BITS | u64::from(b)
}

/// The key of a three-character prefix.
#[inline(always)]
pub(super) fn third_key(a: u16, b: u16, c: u16) -> u64 {
    second_key(a, b) << CHAR_BITS | u64::from(c)
}

/// The key of a prefix of four or more characters: the slot of the prefix
/// without its last character (in the third table, or in the deeper one
/// when `parent_is_deeper`) and the last character's id.
#[inline(always)]
pub(super) fn deeper_key(parent_slot: u32, parent_is_deeper: bool, c: u16) -> u64 {
    (u64::from(parent_slot) << 1 | u64::from(parent_is_deeper)) << CHAR_BITS | u64::from(c)
}

impl Dictionary {
    /// The shipped dictionary. A test checks that it loads; if it did not
    /// (a build defect), every character would be a word of its own.
    pub(crate) fn jieba() -> Dictionary {
        let mut text = String::new();
        let parsed = flate2::read::GzDecoder::new(JIEBA_DICT_GZ)
            .read_to_string(&mut text)
            .map_err(|e| e.to_string())
            .and_then(|_| Dictionary::parse(&text));
        parsed.unwrap_or_else(|_| Dictionary::from_words(Words::default()).0)
    }

    /// A dictionary from lines `word frequency`, as jieba's `dict.txt`
    /// (anything after the frequency is ignored), each word once. Its words
    /// may use at most 16,383 distinct characters, all in the Basic
    /// Multilingual Plane.
    ///
    /// Word ids go by descending frequency, so that what is stored per word
    /// id for the common words shares a few cache lines.
    pub(crate) fn parse(text: &str) -> Result<Dictionary, String> {
        let mut parsed = Words::default();
        let Words {
            words,
            text: all,
            ends,
            char_ids,
            chars,
        } = &mut parsed;
        let mut lines = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let mut fields = line.split_whitespace();
            let Some(word) = fields.next() else { continue };
            let freq: u64 = fields
                .next()
                .and_then(|f| f.parse().ok())
                .ok_or_else(|| format!("line {}: no frequency after {word:?}", n + 1))?;
            let mut ids = Vec::with_capacity(word.len() / 3);
            for c in word.chars() {
                let code = usize::try_from(u32::from(c)).unwrap_or(usize::MAX);
                let slot = char_ids
                    .get_mut(code)
                    .ok_or_else(|| format!("line {}: {c:?} is outside the BMP", n + 1))?;
                if *slot == NO_CHAR {
                    *chars += 1;
                    if *chars > MAX_CHARS {
                        return Err(format!("more than {MAX_CHARS} distinct characters"));
                    }
                    *slot = *chars as u16;
                }
                ids.push(*slot);
            }
            lines.push((word, ids, freq));
        }
        lines.sort_by_key(|&(_, _, freq)| std::cmp::Reverse(freq));
        for (word, ids, freq) in lines {
            words.push((ids, freq));
            all.push_str(word);
            ends.push(u32::try_from(all.len()).map_err(|_| "too many words".to_string())?);
        }
        if words.len() > MAX_WORD as usize + 1 {
            return Err(format!("more than {} words", MAX_WORD + 1));
        }
        if words
            .iter()
            .map(|(w, _)| w.len().saturating_sub(3))
            .sum::<usize>()
            > 1 << 24
        {
            return Err("too many long words".to_string());
        }
        match Dictionary::from_words(parsed) {
            (dictionary, true) => Ok(dictionary),
            (_, false) => Err("a word is given twice".to_string()),
        }
    }

    /// The dictionary of `words`, whose limits of ids and tables the caller
    /// has checked, and whether every word was new.
    fn from_words(parsed: Words) -> (Dictionary, bool) {
        let Words {
            words,
            text,
            ends,
            char_ids,
            chars,
        } = parsed;
        let total: u64 = words.iter().map(|(_, f)| f).sum();
        let log_total = (total as f64).ln();

        let count_prefixes = |len: usize| {
            let mut keys: Vec<&[u16]> = words
                .iter()
                .filter(|(w, _)| w.len() >= len)
                .map(|(w, _)| &w[..len])
                .collect();
            keys.sort_unstable();
            keys.dedup();
            keys.len()
        };
        let deeper_count: usize = words.iter().map(|(w, _)| w.len().saturating_sub(3)).sum();
        let mut dictionary = Dictionary {
            char_ids,
            first: vec![Entry::default(); chars + 1].into_boxed_slice(),
            second: PrefixTable::with_capacity(count_prefixes(2)),
            third: PrefixTable::with_capacity(count_prefixes(3)),
            deeper: PrefixTable::with_capacity(deeper_count),
            log_probs: CompactF64s::new(
                words
                    .iter()
                    .map(|&(_, freq)| (freq as f64).ln() - log_total),
            ),
            unknown_log_prob: 0.0 - log_total,
            text: text.into_boxed_str(),
            ends: ends.into_boxed_slice(),
        };
        let mut all_new = true;
        for (id, (word, _)) in words.iter().enumerate() {
            // The tables are sized for every prefix, so each one finds a
            // slot.
            all_new &= dictionary.insert(word, id as u32) == Some(true);
        }
        (dictionary, all_new)
    }

    /// Records the word of character ids `word` as word `id`: every prefix
    /// of it marked as extended, the whole of it marked as the word.
    /// `Some(false)` if it was a word already.
    fn insert(&mut self, word: &[u16], id: u32) -> Option<bool> {
        let was_word = std::cell::Cell::new(false);
        let mark = |entry: Entry, len: usize| {
            if len == word.len() {
                was_word.set(entry.word().is_some());
                entry.with_word(id)
            } else {
                entry.with_longer()
            }
        };
        let (&a, rest) = word.split_first()?;
        let first = self.first.get_mut(usize::from(a))?;
        *first = mark(*first, 1);
        if let Some(&b) = rest.first() {
            let slot = self.second.slot_of(second_key(a, b))?;
            self.second
                .set_entry(slot, mark(self.second.entry(slot), 2));
            if let Some(&c) = rest.get(1) {
                let mut parent = self.third.slot_of(third_key(a, b, c))?;
                self.third
                    .set_entry(parent, mark(self.third.entry(parent), 3));
                let mut parent_is_deeper = false;
                for (i, &d) in word.iter().enumerate().skip(3) {
                    let slot = self
                        .deeper
                        .slot_of(deeper_key(parent, parent_is_deeper, d))?;
                    self.deeper
                        .set_entry(slot, mark(self.deeper.entry(slot), i + 1));
                    parent = slot;
                    parent_is_deeper = true;
                }
            }
        }
        Some(!was_word.get())
    }

    /// The id of character `c`, [`NO_CHAR`] if no word uses it.
    #[inline(always)]
    pub(super) fn char_id(&self, c: char) -> u16 {
        self.char_ids
            .get(u32::from(c) as usize)
            .copied()
            .unwrap_or(NO_CHAR)
    }

    /// The entry of the one-character prefix `a`.
    #[inline(always)]
    pub(super) fn first(&self, a: u16) -> Entry {
        self.first.get(usize::from(a)).copied().unwrap_or_default()
    }

    /// The two-character prefix table.
    #[inline(always)]
    pub(super) fn second(&self) -> &PrefixTable {
        &self.second
    }

    /// The three-character prefix table.
    #[inline(always)]
    pub(super) fn third(&self) -> &PrefixTable {
        &self.third
    }

    /// The table of longer prefixes.
    #[inline(always)]
    pub(super) fn deeper(&self) -> &PrefixTable {
        &self.deeper
    }

    /// What word `id` adds to a route's log-probability.
    #[inline(always)]
    pub(super) fn log_prob(&self, id: u32) -> f64 {
        self.log_probs.get(id).unwrap_or(f64::NEG_INFINITY)
    }

    /// What a character that starts no word adds to a route's
    /// log-probability.
    #[inline(always)]
    pub(super) fn unknown_log_prob(&self) -> f64 {
        self.unknown_log_prob
    }

    /// How many words the dictionary has.
    pub(crate) fn len(&self) -> usize {
        self.ends.len()
    }

    /// Word `id`, empty for an id the dictionary does not have.
    pub(crate) fn word(&self, id: u32) -> &str {
        let id = id as usize;
        let start = match id.checked_sub(1) {
            Some(previous) => self.ends.get(previous).copied().unwrap_or(0),
            None => 0,
        };
        let end = self.ends.get(id).copied().unwrap_or(start);
        self.text.get(start as usize..end as usize).unwrap_or("")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_dictionary_loads() {
        let d = Dictionary::jieba();
        assert_eq!(d.len(), 349_045);
        let id = |c| d.char_id(c);
        assert_ne!(id('中'), NO_CHAR);
        assert_eq!(id('😀'), NO_CHAR);
        let (_, e) = d.second().find(second_key(id('中'), id('国'))).unwrap();
        assert!(e.word().is_some() && e.has_longer());
        assert_eq!(d.word(e.word().unwrap()), "中国");
        // Ids go by descending frequency: jieba's most frequent word first.
        assert_eq!(d.word(0), "了");
        assert_eq!(d.word(u32::MAX), "");
    }

    #[test]
    fn bad_dictionaries_are_refused() {
        assert!(Dictionary::parse("中国 x\n").is_err());
        assert!(Dictionary::parse("中国\n").is_err());
        assert!(Dictionary::parse("𠀀 3\n").is_err());
        assert!(Dictionary::parse("中国 3\n人 1\n中国 4\n").is_err());
        assert!(Dictionary::parse("").is_ok());
    }
}
