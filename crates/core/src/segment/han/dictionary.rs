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
//!
//! The tables are built when this crate is compiled: `build.rs` runs
//! [`super::building`] over the shipped words and writes them out, and the
//! first Han text of a process decodes them, a copy of a few megabytes
//! instead of parsing and sorting 349,045 lines.

use super::prefix_table::{Entry, PrefixTable};
use crate::compact::CompactF64s;

/// Bits of a character id.
pub(super) const CHAR_BITS: u32 = 14;
/// The character id that no dictionary character has.
pub(super) const NO_CHAR: u16 = 0;

/// The dictionary: which prefixes exist, which are words, and each word's
/// log-probability.
#[derive(Debug, PartialEq)]
pub(crate) struct Dictionary {
    /// Id of every BMP character, [`NO_CHAR`] for one in no word.
    pub(super) char_ids: Box<[u16]>,
    /// One-character prefixes, by character id.
    pub(super) first: Box<[Entry]>,
    pub(super) second: PrefixTable,
    pub(super) third: PrefixTable,
    /// Four characters and more: keyed by [`deeper_key`].
    pub(super) deeper: PrefixTable,
    /// `ln(freq) - ln(total)` of every word, by word id: what a word adds to
    /// a route's log-probability.
    pub(super) log_probs: CompactF64s,
    /// What a character in no word adds: `ln(1) - ln(total)`.
    pub(super) unknown_log_prob: f64,
    /// Every word, back to back, in order of id.
    pub(super) text: Box<str>,
    /// Where each word ends in `text`.
    pub(super) ends: Box<[u32]>,
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
    /// A dictionary of no words: every character is a word of its own.
    pub(crate) fn empty() -> Dictionary {
        Dictionary {
            char_ids: vec![NO_CHAR; 0x1_0000].into_boxed_slice(),
            first: vec![Entry::default(); 1].into_boxed_slice(),
            second: PrefixTable::with_capacity(0),
            third: PrefixTable::with_capacity(0),
            deeper: PrefixTable::with_capacity(0),
            log_probs: CompactF64s::new([]),
            unknown_log_prob: 0.0,
            text: Box::default(),
            ends: Box::default(),
        }
    }

    /// The dictionary that [`super::building`]'s `encode` wrote to `bytes`
    /// (at build time, for jieba's), or `None` if they hold another.
    ///
    /// Every part is a count (`u64`) and that many little-endian values,
    /// in the order of the fields; the log-probabilities are a tag (0:
    /// indexed, 1: direct) before their parts.
    pub(crate) fn decode(bytes: &[u8]) -> Option<Dictionary> {
        let mut r = Reader(bytes);
        let char_ids = r.array(u16::from_le_bytes)?;
        let first = r.array(|b| Entry::from_bits(u64::from_le_bytes(b)))?;
        let second = PrefixTable::from_slots(r.array(u64::from_le_bytes)?);
        let third = PrefixTable::from_slots(r.array(u64::from_le_bytes)?);
        let deeper = PrefixTable::from_slots(r.array(u64::from_le_bytes)?);
        let log_probs = match r.u64()? {
            0 => CompactF64s::Indexed {
                index: r.array(u16::from_le_bytes)?,
                values: r.array(f64::from_le_bytes)?,
            },
            1 => CompactF64s::Direct(r.array(f64::from_le_bytes)?),
            _ => return None,
        };
        let unknown_log_prob = f64::from_bits(r.u64()?);
        let text = String::from_utf8(r.array(|[b]: [u8; 1]| b)?.into_vec()).ok()?;
        let ends = r.array(u32::from_le_bytes)?;
        let whole = char_ids.len() == 0x1_0000
            && !first.is_empty()
            && [&second, &third, &deeper].iter().all(|t| t.is_usable())
            && ends.last().is_none_or(|&end| end as usize == text.len())
            && r.0.is_empty();
        whole.then(|| Dictionary {
            char_ids,
            first,
            second,
            third,
            deeper,
            log_probs,
            unknown_log_prob,
            text: text.into_boxed_str(),
            ends,
        })
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

/// Reads what [`Dictionary::decode`] reads.
struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn u64(&mut self) -> Option<u64> {
        let (head, rest) = self.0.split_first_chunk::<8>()?;
        self.0 = rest;
        Some(u64::from_le_bytes(*head))
    }

    fn count(&mut self) -> Option<usize> {
        usize::try_from(self.u64()?).ok()
    }

    /// A count and that many values of `W` bytes each.
    fn array<T, const W: usize>(&mut self, value: impl Fn([u8; W]) -> T) -> Option<Box<[T]>> {
        let len = self.count()?.checked_mul(W)?;
        let bytes = self.0.get(..len)?;
        self.0 = &self.0[len..];
        bytes
            .chunks_exact(W)
            .map(|c| <[u8; W]>::try_from(c).ok().map(&value))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_dictionary_loads() {
        let d = super::super::dictionary();
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
    fn other_bytes_are_refused() {
        let shipped = super::super::TABLES;
        assert!(Dictionary::decode(shipped).is_some());
        assert!(Dictionary::decode(&shipped[..shipped.len() - 1]).is_none());
        assert!(Dictionary::decode(&[shipped, &[0]].concat()).is_none());
        assert!(Dictionary::decode(&[]).is_none());
        let empty = Dictionary::empty();
        assert_eq!(
            (empty.len(), empty.char_id('中'), empty.word(0)),
            (0, NO_CHAR, "")
        );
    }
}
