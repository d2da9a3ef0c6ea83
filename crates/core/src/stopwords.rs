//! Stop words: function words left out of the features.
//!
//! Words like "the" and "的" occur in almost every text of their language.
//! As features they push the same bits the same way in every fingerprint,
//! which makes unrelated texts look closer than they are. Two lists ship
//! with neardup (`data/stopwords/en.txt`, `zh.txt`); callers may give their
//! own.

use xxhash_rust::xxh3::xxh3_64;

use crate::error::{Error, Result};

/// A set of stop words, looked up by the XXH3 hash of the word and then
/// confirmed by its bytes.
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
    /// Open addressing: each slot holds a word's XXH3 hash and its index in
    /// `words` plus one (0 is an empty slot), so a probe reads one slot.
    slots: Vec<(u64, u32)>,
}

const EN: &str = include_str!("../data/stopwords/en.txt");
const ZH: &str = include_str!("../data/stopwords/zh.txt");

impl StopWords {
    /// The English list shipped with neardup.
    pub fn english() -> StopWords {
        StopWords::from_words(list(EN))
    }

    /// The Chinese list shipped with neardup.
    pub fn chinese() -> StopWords {
        StopWords::from_words(list(ZH))
    }

    /// The English and Chinese lists together.
    pub fn english_and_chinese() -> StopWords {
        StopWords::from_words(list(EN).chain(list(ZH)))
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
        Ok(StopWords::from_words(words.iter().map(String::as_str)))
    }

    fn from_words<'a>(words: impl Iterator<Item = &'a str>) -> StopWords {
        let mut list: Vec<String> = words.map(str::to_string).collect();
        list.sort();
        list.dedup();
        let capacity = (list.len() * 4).next_power_of_two().max(16);
        let mut slots = vec![(0u64, 0u32); capacity];
        for (index, word) in list.iter().enumerate() {
            let h = xxh3_64(word.as_bytes());
            let mut slot = h as usize & (capacity - 1);
            while slots[slot].1 != 0 {
                slot = (slot + 1) & (capacity - 1);
            }
            slots[slot] = (h, index as u32 + 1);
        }
        StopWords { words: list, slots }
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
        self.contains_hashed(word.as_bytes(), xxh3_64(word.as_bytes()))
    }

    /// [`StopWords::contains`] for a caller that has the word's XXH3-64 hash
    /// at hand already.
    #[inline]
    pub(crate) fn contains_hashed(&self, word: &[u8], xxh3: u64) -> bool {
        let mask = self.slots.len() - 1;
        let mut slot = xxh3 as usize & mask;
        loop {
            match self.slots[slot] {
                (_, 0) => return false,
                (h, i) if h == xxh3 => {
                    if let Some(w) = self.words.get(i as usize - 1)
                        && w.as_bytes() == word
                    {
                        return true;
                    }
                }
                _ => {}
            }
            slot = (slot + 1) & mask;
        }
    }
}

fn list(text: &str) -> impl Iterator<Item = &str> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn own_lists_are_normalised() {
        assert!(StopWords::from_lines("ＴＨＥ").unwrap().contains("the"));
        assert!(StopWords::from_lines("").unwrap().is_empty());
    }
}
