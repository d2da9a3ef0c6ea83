//! The labelled benchmark: real documents, near-duplicates made from them
//! by the edits of [`crate::edits`], negatives from the same sources, and
//! for every pair the exact truth.
//!
//! **Ground truth**, exact, never by SimHash nor by the verifier under
//! test: two documents are near-duplicates when the Jaccard similarity of
//! their shingles, computed from its definition ([`crate::truth_shingles`]:
//! word 3-shingles; character 4-grams for Chinese), is at least
//! [`THRESHOLD`], whoever made the pair.
//!
//! A second view, the truth of an editor, is kept beside it
//! ([`LabelledPair::edited_duplicate`]): a document and an edited copy are
//! near-duplicates when the edit changed the content of at most
//! [`MAX_CHANGE`] of its units (words; characters for Chinese): units
//! substituted, inserted, deleted, cut off or added as boilerplate count;
//! case, punctuation, whitespace and the order of sentences do not
//! ([`crate::content_change`]); any other two documents when their shingle
//! Jaccard is at least [`THRESHOLD`] or one is made from the other by
//! substituting, inserting and deleting at most [`MAX_CHANGE`] of the
//! longer's words ([`crate::edit_rate`]).

use std::collections::HashSet;

use neardup_dedup::compat::length_in_words;
use neardup_dedup::word_hashes;

use crate::edit_rate::edit_rate;
use crate::edits::{EditKind, content_change, edit, traditional};
use crate::rng::Rng;
use crate::truth::{THRESHOLD, similarity, truth_shingles};

/// The most of an original's content an edit may change for the copy to be
/// its near-duplicate in the editor's view.
pub const MAX_CHANGE: f64 = 0.10;

/// The rates every edit kind is applied at (a share of the units). None
/// sits on [`MAX_CHANGE`] itself, where the truth of a copy would hang on
/// the rounding of one unit: 8% is two points inside, 12% two outside.
pub const RATES: [f64; 7] = [0.005, 0.01, 0.03, 0.05, 0.08, 0.12, 0.2];

/// A corpus the benchmark draws from.
#[derive(Clone, Debug)]
pub struct BenchmarkSource {
    /// Its name in reports (`bbc`).
    pub name: String,
    /// Its language in reports (`en`, `zh`).
    pub language: String,
    /// Its documents: `(topic, text)`; documents of one topic are the
    /// source's hard negatives for each other (news of one section).
    pub documents: Vec<(String, String)>,
    /// Pairs of its documents (by index) found in the wild, judged by a
    /// person: both kept in the benchmark as they are, whatever the draw.
    pub natural: Vec<(usize, usize)>,
}

/// A document of the benchmark.
#[derive(Clone, Debug)]
pub struct BenchmarkDocument {
    /// The text.
    pub text: String,
    /// Index of its source.
    pub source: usize,
    /// Its length in words (characters / 2 for text without spaces).
    pub words: usize,
}

/// Where a pair comes from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PairOrigin {
    /// A document and an edited copy of it.
    Edited {
        /// The edit.
        kind: EditKind,
        /// Its rate.
        rate: f64,
    },
    /// Two different documents of one source and topic.
    HardNegative,
    /// Two different documents of one source.
    Negative,
    /// Two documents of a source's natural pairs.
    Natural,
}

/// A pair of documents with its truth.
#[derive(Clone, Debug)]
pub struct LabelledPair {
    /// The first document.
    pub a: usize,
    /// The second.
    pub b: usize,
    /// How it was made.
    pub origin: PairOrigin,
    /// The exact Jaccard similarity of their shingles
    /// ([`crate::truth_shingles`]).
    pub jaccard: f64,
    /// The truth: `jaccard >= THRESHOLD`.
    pub duplicate: bool,
    /// The editor's view: for an edited copy, at most [`MAX_CHANGE`] of
    /// the content changed; otherwise `jaccard >= THRESHOLD` or an edit rate
    /// of at most [`MAX_CHANGE`].
    pub edited_duplicate: bool,
}

/// Documents and labelled pairs.
#[derive(Clone, Debug, Default)]
pub struct Benchmark {
    /// The sources, as given.
    pub sources: Vec<(String, String)>,
    /// Every document, originals and edited copies.
    pub documents: Vec<BenchmarkDocument>,
    /// The labelled pairs.
    pub pairs: Vec<LabelledPair>,
}

impl Benchmark {
    /// The language of document `d`: its source's (`""` for none).
    ///
    /// ```
    /// assert_eq!(neardup_eval::Benchmark::default().language(0), "");
    /// ```
    pub fn language(&self, d: usize) -> &str {
        self.documents
            .get(d)
            .and_then(|doc| self.sources.get(doc.source))
            .map_or("", |s| s.1.as_str())
    }

    /// The truth's Jaccard similarity of documents `a` and `b`, each cut by
    /// its language ([`crate::truth_shingles`]): for any pair, labelled or
    /// not (what a dedup dropped, and for which document).
    pub fn similarity(&self, a: usize, b: usize) -> f64 {
        let shingles = |d: usize| truth_shingles(&self.documents[d].text, self.language(d));
        similarity(&shingles(a), &shingles(b))
    }
}

/// How big a benchmark to build.
#[derive(Clone, Copy, Debug)]
pub struct Size {
    /// Originals drawn from each source.
    pub originals: usize,
    /// Negative pairs (and as many hard negatives) per original.
    pub negatives: usize,
    /// The seed of every draw.
    pub seed: u64,
}

/// Builds the benchmark: from each source, its natural pairs, and
/// `size.originals` documents (the first of a seeded shuffle); for each,
/// one edited copy per edit kind and rate (boilerplate once), and
/// `size.negatives` pairs with other documents of the source and as many
/// with documents of its topic.
///
/// ```
/// use neardup_eval::{Size, BenchmarkSource, build};
///
/// let text = |i: usize| format!("story {i} about the weather, the rain and the wind in the hills and the valleys of the north today");
/// let source = BenchmarkSource {
///     name: "toy".into(),
///     language: "en".into(),
///     documents: (0..4).map(|i| ("news".to_string(), text(i))).collect(),
///     natural: vec![(0, 1)],
/// };
/// let bench = build(&[source], Size { originals: 2, negatives: 1, seed: 1 });
/// assert!(bench.pairs.iter().any(|p| p.duplicate));
/// assert!(bench.pairs.iter().all(|p| p.a != p.b));
/// assert!(bench.pairs.iter().any(|p| p.origin == neardup_eval::PairOrigin::Natural));
/// ```
pub fn build(sources: &[BenchmarkSource], size: Size) -> Benchmark {
    let mut bench = Benchmark {
        sources: sources
            .iter()
            .map(|s| (s.name.clone(), s.language.clone()))
            .collect(),
        ..Benchmark::default()
    };
    let mut rng = Rng::new(size.seed);
    for (s, source) in sources.iter().enumerate() {
        let n = source.documents.len();
        if n == 0 {
            continue;
        }
        let mut order: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            order.swap(i, rng.below(i + 1));
        }
        // Every document of the source that a pair may use, added once.
        let mut added: Vec<Option<usize>> = vec![None; n];
        let mut add = |bench: &mut Benchmark, i: usize| -> usize {
            *added[i].get_or_insert_with(|| push(bench, s, source.documents[i].1.clone()))
        };
        let shingles_of = |i: usize| truth_shingles(&source.documents[i].1, &source.language);
        for &(i, j) in &source.natural {
            if i < n && j < n && i != j {
                let (a, b) = (add(&mut bench, i), add(&mut bench, j));
                let sa = shingles_of(i);
                labelled(&mut bench, (a, &sa), b, PairOrigin::Natural, None);
            }
        }
        let mut drawn: std::collections::HashSet<(usize, usize)> = source
            .natural
            .iter()
            .map(|&(i, j)| (i.min(j), i.max(j)))
            .collect();
        for &original in order.iter().take(size.originals) {
            let a = add(&mut bench, original);
            let text = source.documents[original].1.clone();
            let sa = shingles_of(original);
            let han = text.chars().any(|c| traditional(c) != c);
            for kind in EditKind::ALL {
                let rates: &[f64] = match kind {
                    EditKind::Traditional if han => &[0.0],
                    EditKind::Traditional => &[],
                    _ => &RATES,
                };
                for &rate in rates {
                    let edited = edit(&text, kind, rate, rng.next_u64());
                    let change = content_change(&text, kind, rate);
                    let b = push(&mut bench, s, edited);
                    labelled(
                        &mut bench,
                        (a, &sa),
                        b,
                        PairOrigin::Edited { kind, rate },
                        Some(change),
                    );
                }
            }
            let topic = &source.documents[original].0;
            let same_topic: Vec<usize> = (0..n)
                .filter(|&j| j != original && &source.documents[j].0 == topic)
                .collect();
            for _ in 0..size.negatives {
                // A pair drawn again (from either side) is not counted twice.
                if !same_topic.is_empty() {
                    let j = same_topic[rng.below(same_topic.len())];
                    if drawn.insert((original.min(j), original.max(j))) {
                        let b = add(&mut bench, j);
                        labelled(&mut bench, (a, &sa), b, PairOrigin::HardNegative, None);
                    }
                }
                let j = rng.below(n);
                if j != original && drawn.insert((original.min(j), original.max(j))) {
                    let b = add(&mut bench, j);
                    labelled(&mut bench, (a, &sa), b, PairOrigin::Negative, None);
                }
            }
        }
    }
    bench
}

fn push(bench: &mut Benchmark, source: usize, text: String) -> usize {
    let words = length_in_words(&text);
    bench.documents.push(BenchmarkDocument {
        text,
        source,
        words,
    });
    bench.documents.len() - 1
}

/// Adds the pair `a` (with its truth shingles), `b`; `change` is the
/// content an edit changed, for an edited copy.
fn labelled(
    bench: &mut Benchmark,
    (a, sa): (usize, &HashSet<String>),
    b: usize,
    origin: PairOrigin,
    change: Option<f64>,
) {
    let (da, db) = (&bench.documents[a], &bench.documents[b]);
    let jaccard = similarity(sa, &truth_shingles(&db.text, bench.language(b)));
    let duplicate = jaccard >= THRESHOLD;
    // A small tolerance: 10% of 30 units is 3 units, whatever the rounding.
    let edited_duplicate = match change {
        Some(c) => c <= MAX_CHANGE + 1e-9,
        None => {
            duplicate
                || edit_rate(&word_hashes(&da.text), &word_hashes(&db.text), MAX_CHANGE).is_some()
        }
    };
    bench.pairs.push(LabelledPair {
        a,
        b,
        origin,
        jaccard,
        duplicate,
        edited_duplicate,
    });
}
