//! Inverse document frequencies: how rare, and so how telling, a feature is.
//!
//! A table maps features to IDF values and has a default for features it
//! does not hold. Two sources:
//!
//! - [`IdfTable::jieba`]: jieba's table (MIT), 270,132 Chinese words, shipped
//!   in `data/jieba_idf.txt.gz`; the default is the median of its values, as
//!   in jieba's `extract_tags`.
//! - [`DocumentFrequencies`]: counted over the caller's own corpus (the
//!   `neardup idf` command), turned into a table with
//!   `idf = ln((N + 1) / (df + 1)) + 1`; the default is the value of a
//!   feature seen in one document.
//!
//! Tables are stored as text, one `feature<TAB>idf` per line with the IDF in
//! decimal, so that a fingerprint depends on the file's digits, not on how a
//! platform computes logarithms.

use std::collections::HashMap;
use std::io::Read;
use std::sync::{Arc, OnceLock};

use xxhash_rust::xxh3::Xxh3DefaultBuilder;

use crate::compact::CompactF64s;
use crate::packed::{WordMap, head};
use crate::segment::han::dictionary_words;

use crate::error::{Error, Result};

const JIEBA_IDF_GZ: &[u8] = include_bytes!("../../data/jieba_idf.txt.gz");

/// A table of inverse document frequencies.
///
/// ```
/// use neardup_core::IdfTable;
///
/// let table = IdfTable::from_text("#default\t9.5\n飞碟\t12.25\n美国\t3.5\n")?;
/// assert_eq!(table.idf("飞碟"), 12.25);
/// assert_eq!(table.idf("外星人"), 9.5);
/// # Ok::<(), neardup_core::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct IdfTable {
    /// Looked up once per distinct word of every document, so kept as a
    /// [`WordMap`]: a short word (most of them) is found without hashing
    /// its bytes or following a pointer.
    values: WordMap<f64>,
    default: f64,
    /// The IDF of every word of the Han dictionary, by its id: Chinese
    /// words arrive with their id, and this array stays in cache where the
    /// map does not. Built on first use.
    han_words: OnceLock<CompactF64s>,
    /// The digest of the text it was read from, when it was
    /// ([`IdfTable::from_text`]).
    source: Option<u128>,
}

impl IdfTable {
    /// Jieba's IDF table, loaded once per process.
    pub fn jieba() -> Arc<IdfTable> {
        jieba_shared().clone()
    }

    fn new(values: WordMap<f64>, default: f64) -> IdfTable {
        IdfTable {
            values,
            default,
            han_words: OnceLock::new(),
            source: None,
        }
    }

    /// How [`crate::FingerprintSettings`] names the table: the digest of
    /// the text it was read from, or of [`IdfTable::to_text`] for a table
    /// made otherwise.
    pub(crate) fn digest(&self) -> u128 {
        self.source
            .unwrap_or_else(|| crate::settings::digest_of(&self.to_text()))
    }

    /// A table with no entries, giving `default` for every feature.
    pub fn empty(default: f64) -> IdfTable {
        IdfTable::new(WordMap::new([]), default)
    }

    /// Parses a table: one `feature idf` pair per line, separated by a tab or
    /// spaces (jieba's `idf.txt` is in this format). A line `#default VALUE`
    /// sets the value for missing features; without it the default is the
    /// median of the values. Other lines starting with `#` are comments.
    ///
    /// # Errors
    ///
    /// [`Error::Table`] naming the line of a missing or non-finite value.
    pub fn from_text(text: &str) -> Result<IdfTable> {
        let mut values = Vec::new();
        let mut default = None;
        for (i, line) in text.lines().enumerate() {
            let line = line.trim_end_matches('\r');
            if line.trim().is_empty() {
                continue;
            }
            let (key, value) = match line.rsplit_once(['\t', ' ']) {
                Some((key, value)) => (key.trim_end(), value),
                None => (line, ""),
            };
            let parsed = value.parse::<f64>().ok().filter(|v| v.is_finite());
            let Some(idf) = parsed else {
                return Err(Error::Table {
                    table: "IDF",
                    line: i + 1,
                    reason: format!(
                        "expected a feature and a number separated by a tab, found {:?}",
                        line.chars().take(60).collect::<String>()
                    ),
                });
            };
            if key == "#default" {
                default = Some(idf);
            } else if !key.starts_with('#') {
                values.push((key.as_bytes(), idf));
            }
        }
        let default = default.unwrap_or_else(|| median(values.iter().map(|(_, v)| *v)));
        let mut table = IdfTable::new(WordMap::new(values), default);
        table.source = Some(crate::settings::digest_of(text));
        Ok(table)
    }

    /// The table in the text form [`IdfTable::from_text`] reads, sorted by
    /// feature, values with enough digits to read back exactly.
    pub fn to_text(&self) -> String {
        // Keys were inserted from `&str`, so they are UTF-8.
        let mut entries: Vec<(String, f64)> = self
            .values
            .entries()
            .map(|(k, v)| (String::from_utf8_lossy(&k).into_owned(), v))
            .collect();
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        let mut out = format!("#default\t{}\n", self.default);
        for (feature, idf) in entries {
            out.push_str(&feature);
            out.push('\t');
            out.push_str(&idf.to_string());
            out.push('\n');
        }
        out
    }

    /// The IDF of `feature`, or the default.
    #[inline]
    pub fn idf(&self, feature: &str) -> f64 {
        self.idf_of_bytes(feature.as_bytes())
    }

    /// The IDF of the feature with these UTF-8 bytes, or the default.
    #[inline]
    pub(crate) fn idf_of_bytes(&self, feature: &[u8]) -> f64 {
        self.values
            .get(feature, head(feature))
            .unwrap_or(self.default)
    }

    /// The IDF of word `id` of the Han dictionary
    /// ([`crate::segment::han::dictionary_words`]): the same value as
    /// [`IdfTable::idf`] of the word, without a lookup by its bytes.
    #[inline]
    pub(crate) fn idf_of_han_word(&self, id: u32) -> f64 {
        let by_id = self
            .han_words
            .get_or_init(|| CompactF64s::new(dictionary_words().map(|w| self.idf(w))));
        by_id.get(id).unwrap_or(self.default)
    }

    /// The value for features the table does not hold.
    pub fn default_idf(&self) -> f64 {
        self.default
    }

    /// The number of features in the table.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether the table holds no features.
    pub fn is_empty(&self) -> bool {
        self.values.len() == 0
    }
}

/// Jieba's table, decompressed and parsed on first use (about 0.2 s), so
/// that work without Chinese text never pays for it.
fn jieba_shared() -> &'static Arc<IdfTable> {
    static JIEBA: OnceLock<Arc<IdfTable>> = OnceLock::new();
    JIEBA.get_or_init(|| {
        let mut text = String::new();
        // The embedded table is checked by a test; a failure here is a
        // build defect, and an empty table is the safe fallback.
        let table = flate2::read::GzDecoder::new(JIEBA_IDF_GZ)
            .read_to_string(&mut text)
            .ok()
            .and_then(|_| IdfTable::from_text(&text).ok())
            .unwrap_or_else(|| IdfTable::empty(0.0));
        Arc::new(table)
    })
}

/// Jieba's table, for the pipeline's lookups.
pub(crate) fn jieba_table() -> &'static IdfTable {
    jieba_shared()
}

/// The lower median, as jieba takes it; 0 for no values.
fn median(values: impl Iterator<Item = f64>) -> f64 {
    let mut all: Vec<f64> = values.collect();
    if all.is_empty() {
        return 0.0;
    }
    all.sort_by(f64::total_cmp);
    all[(all.len() - 1) / 2]
}

/// Document frequencies counted over a corpus: for each feature, the number
/// of documents it occurs in.
///
/// ```
/// use neardup_core::DocumentFrequencies;
///
/// let mut df = DocumentFrequencies::default();
/// df.add_document(["cat", "sat", "cat"]);
/// df.add_document(["dog", "sat"]);
/// assert_eq!(df.documents(), 2);
/// let table = df.to_idf_table(1);
/// assert!(table.idf("cat") > table.idf("sat"));
/// ```
#[derive(Clone, Debug, Default)]
pub struct DocumentFrequencies {
    documents: u64,
    counts: HashMap<String, u64, Xxh3DefaultBuilder>,
}

impl DocumentFrequencies {
    /// Counts one document's features (each once, however often it occurs).
    pub fn add_document<'a>(&mut self, features: impl IntoIterator<Item = &'a str>) {
        self.documents += 1;
        let mut seen: std::collections::HashSet<&str, Xxh3DefaultBuilder> = Default::default();
        for feature in features {
            if seen.insert(feature) {
                *self.counts.entry(feature.to_string()).or_insert(0) += 1;
            }
        }
    }

    /// Adds the counts of another part of the corpus.
    pub fn merge(&mut self, other: DocumentFrequencies) {
        self.documents += other.documents;
        for (feature, n) in other.counts {
            *self.counts.entry(feature).or_insert(0) += n;
        }
    }

    /// The number of documents counted.
    pub fn documents(&self) -> u64 {
        self.documents
    }

    /// The number of distinct features seen.
    pub fn features(&self) -> usize {
        self.counts.len()
    }

    /// The IDF table, keeping features seen in at least `min_df` documents
    /// (the others get the default, the IDF of a feature seen once).
    pub fn to_idf_table(&self, min_df: u64) -> IdfTable {
        let n = self.documents as f64;
        let idf = |df: u64| ((n + 1.0) / (df as f64 + 1.0)).ln() + 1.0;
        let values = self
            .counts
            .iter()
            .filter(|(_, df)| **df >= min_df.max(1))
            .map(|(k, df)| (k.as_bytes(), idf(*df)));
        IdfTable::new(WordMap::new(values), idf(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jieba_table_loads_with_its_median() {
        let table = IdfTable::jieba();
        assert!(table.len() > 250_000, "{}", table.len());
        assert_eq!(table.idf("劳动防护"), 13.900677652);
        let d = table.default_idf();
        assert!(d > 10.0 && d < 13.0, "median {d}");
    }

    #[test]
    fn han_word_ids_give_the_idf_of_their_words() {
        // jieba's table (few distinct values, indexed) and one with a
        // distinct value for every word (stored directly).
        let jieba = IdfTable::jieba();
        let mut text = String::from("#default\t0.5\n");
        for (i, w) in dictionary_words().enumerate().step_by(3) {
            text.push_str(&format!("{w}\t{}\n", i as f64 + 0.25));
        }
        let distinct = IdfTable::from_text(&text).unwrap();
        for table in [&*jieba, &distinct] {
            for (id, word) in dictionary_words().enumerate() {
                let by_id = table.idf_of_han_word(id as u32);
                assert_eq!(by_id.to_bits(), table.idf(word).to_bits(), "{word}");
            }
            assert_eq!(table.idf_of_han_word(u32::MAX), table.default_idf());
        }
        assert!(jieba.han_words.get().is_some_and(CompactF64s::is_indexed));
        let direct = distinct.han_words.get();
        assert!(direct.is_some_and(|d| !d.is_indexed()));
    }

    #[test]
    fn text_round_trip() {
        let mut df = DocumentFrequencies::default();
        df.add_document(["a", "b"]);
        df.add_document(["a", "c d"]);
        let table = df.to_idf_table(1);
        let back = IdfTable::from_text(&table.to_text()).unwrap();
        for f in ["a", "b", "c d", "missing"] {
            assert_eq!(back.idf(f), table.idf(f), "{f}");
        }
    }

    #[test]
    fn bad_lines_are_named() {
        let err = IdfTable::from_text("a\t1\nb\tx\n").unwrap_err();
        assert!(err.to_string().contains("line 2"), "{err}");
        assert!(IdfTable::from_text("a\tNaN").is_err());
    }
}
