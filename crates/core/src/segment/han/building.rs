//! Building jieba's dictionary tables from its word list: run by `build.rs`
//! when the crate is compiled (its output is what [`Dictionary::decode`]
//! reads), and by the tests that hold the two equal.

use std::io::Read;

use super::dictionary::{CHAR_BITS, Dictionary, NO_CHAR, deeper_key, second_key, third_key};
use super::prefix_table::{Entry, MAX_WORD, PrefixTable};
use crate::compact::CompactF64s;

/// jieba's words and frequencies, gzipped.
const JIEBA_DICT_GZ: &[u8] = include_bytes!("../../../data/jieba_dict.txt.gz");

const MAX_CHARS: usize = (1 << CHAR_BITS) - 1;

/// jieba's word list, parsed into tables.
///
/// # Errors
///
/// A word list that does not decompress or parse.
pub(crate) fn jieba() -> Result<Dictionary, String> {
    let mut text = String::new();
    flate2::read::GzDecoder::new(JIEBA_DICT_GZ)
        .read_to_string(&mut text)
        .map_err(|e| e.to_string())?;
    Dictionary::parse(&text)
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

impl Dictionary {
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

    /// The bytes [`Dictionary::decode`] reads back as this dictionary.
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut w = Writer(Vec::new());
        w.array(&self.char_ids, |c| c.to_le_bytes());
        w.array(&self.first, |e| e.bits().to_le_bytes());
        for table in [&self.second, &self.third, &self.deeper] {
            w.array(table.slots(), |s| s.to_le_bytes());
        }
        match &self.log_probs {
            CompactF64s::Indexed { index, values } => {
                w.u64(0);
                w.array(index, |i| i.to_le_bytes());
                w.array(values, |v| v.to_le_bytes());
            }
            CompactF64s::Direct(values) => {
                w.u64(1);
                w.array(values, |v| v.to_le_bytes());
            }
        }
        w.u64(self.unknown_log_prob.to_bits());
        w.array(self.text.as_bytes(), |b| [b]);
        w.array(&self.ends, |e| e.to_le_bytes());
        w.0
    }
}

/// Writes what [`Dictionary::decode`] reads.
struct Writer(Vec<u8>);

impl Writer {
    fn u64(&mut self, value: u64) {
        self.0.extend_from_slice(&value.to_le_bytes());
    }

    /// A count and the values, `W` bytes each.
    fn array<T: Copy, const W: usize>(&mut self, values: &[T], bytes: impl Fn(T) -> [u8; W]) {
        self.u64(values.len() as u64);
        for &v in values {
            self.0.extend_from_slice(&bytes(v));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tables_built_at_compile_time_are_the_word_list_parsed_now() {
        let parsed = jieba().unwrap();
        assert_eq!(Dictionary::decode(&parsed.encode()).as_ref(), Some(&parsed));
        assert_eq!(super::super::dictionary(), &parsed);
    }

    #[test]
    fn bad_dictionaries_are_refused() {
        assert!(Dictionary::parse("中国 x\n").is_err());
        assert!(Dictionary::parse("中国\n").is_err());
        assert!(Dictionary::parse("𠀀 3\n").is_err());
        assert!(Dictionary::parse("中国 3\n人 1\n中国 4\n").is_err());
        let empty = Dictionary::parse("").unwrap();
        assert_eq!(Dictionary::decode(&empty.encode()), Some(empty));
    }
}
