//! Every other weighting: the distinct features of a document are tallied
//! in order of first occurrence, weighed, and accumulated in that order, so
//! that the floating-point sums, and so the fingerprints, are the same on
//! every platform.

use std::cell::RefCell;
use std::collections::HashMap;

use super::stream::{featureless, keeps};
use super::{SCRATCH, WeightedFeature};
use crate::accumulate::Accumulator;
use crate::features::{FeatureKind, for_each_feature};
use crate::fingerprint::Fingerprint;
use crate::hash::IdentityBuild;
use crate::profile::Settings;
use crate::weight::idf::{IdfTable, jieba_table};
use crate::weight::{Weighting, textrank};

pub(super) fn accumulate(s: &Settings, text: &str, features: &[WeightedFeature]) -> Fingerprint {
    if features.is_empty() {
        return featureless(s, text);
    }
    let mut acc = Accumulator::with_width(s.width);
    for f in features {
        acc.add(f.hash, f.weight);
    }
    Fingerprint::new(acc.value(), s.width)
}

/// The kept tokens of `text`, copied into one string.
fn tokens(s: &Settings, text: &str) -> (String, Vec<(usize, usize)>) {
    let mut arena = String::new();
    let mut spans = Vec::new();
    SCRATCH.with(|scratch| {
        let mut scratch = scratch.borrow_mut();
        s.segmenter.for_each_token(text, &mut scratch, |token| {
            // Tokens are slices of UTF-8 text cut at character boundaries.
            let Ok(word) = std::str::from_utf8(token.bytes) else {
                return;
            };
            if keeps(s, &token) {
                spans.push((arena.len(), arena.len() + word.len()));
                arena.push_str(word);
            }
        });
    });
    (arena, spans)
}

struct Tally {
    text: Option<String>,
    hash: u128,
    count: f64,
    idf: f64,
}

/// The tables of [`Tallies`], kept from one document to the next so that a
/// document does not allocate and grow them again.
#[derive(Default)]
struct Buffers {
    index: HashMap<u128, u32, IdentityBuild>,
    tallies: Vec<Tally>,
}

thread_local! {
    static BUFFERS: RefCell<Buffers> = RefCell::new(Buffers::default());
}

/// Tables larger than this are let go after their document, not kept.
const MAX_KEPT_TALLIES: usize = 1 << 16;

/// Distinct features and their counts, in order of first occurrence.
struct Tallies<'a> {
    settings: &'a Settings,
    keep_text: bool,
    index: HashMap<u128, u32, IdentityBuild>,
    tallies: Vec<Tally>,
}

impl<'a> Tallies<'a> {
    fn new(settings: &'a Settings, keep_text: bool) -> Tallies<'a> {
        let buffers = BUFFERS
            .try_with(|b| b.try_borrow_mut().map(|mut b| std::mem::take(&mut *b)))
            .ok()
            .and_then(|b| b.ok())
            .unwrap_or_default();
        Tallies {
            settings,
            keep_text,
            index: buffers.index,
            tallies: buffers.tallies,
        }
    }

    /// Counts one occurrence of `feature`, whose feature hash is `hash`
    /// and which is word `han_word` of the Han dictionary if given.
    #[inline]
    fn add(&mut self, feature: &[u8], han_word: Option<u32>, hash: u128) {
        let s = self.settings;
        let keep_text = self.keep_text;
        let tallies = &mut self.tallies;
        let i = *self.index.entry(hash).or_insert_with(|| {
            tallies.push(Tally {
                text: keep_text.then(|| String::from_utf8_lossy(feature).into_owned()),
                hash,
                count: 0.0,
                idf: match s.weighting {
                    Weighting::TfIdf => {
                        let table: &IdfTable = match &s.idf {
                            Some(table) => table,
                            None => jieba_table(),
                        };
                        match han_word {
                            Some(id) => table.idf_of_han_word(id),
                            None => table.idf_of_bytes(feature),
                        }
                    }
                    _ => 1.0,
                },
            });
            (tallies.len() - 1) as u32
        });
        tallies[i as usize].count += 1.0;
    }

    fn weight(&self, t: &Tally) -> f64 {
        match self.settings.weighting {
            Weighting::Binary => 1.0,
            Weighting::TfIdf => t.count * t.idf,
            _ => t.count,
        }
    }

    fn weighted(mut self) -> Vec<WeightedFeature> {
        let tallies = std::mem::take(&mut self.tallies);
        tallies
            .into_iter()
            .map(|t| WeightedFeature {
                weight: self.weight(&t),
                hash: t.hash,
                text: t.text.unwrap_or_default(),
            })
            .collect()
    }

    /// The fingerprint of `text`, whose features these are: the same as
    /// [`accumulate`] of [`Tallies::weighted`], without the list.
    fn fingerprint(&self, text: &str) -> Fingerprint {
        let s = self.settings;
        if self.tallies.is_empty() {
            return featureless(s, text);
        }
        let mut acc = Accumulator::with_width(s.width);
        for t in &self.tallies {
            acc.add(t.hash, self.weight(t));
        }
        Fingerprint::new(acc.value(), s.width)
    }
}

impl Drop for Tallies<'_> {
    fn drop(&mut self) {
        if self.tallies.capacity() > MAX_KEPT_TALLIES {
            return;
        }
        let mut index = std::mem::take(&mut self.index);
        let mut tallies = std::mem::take(&mut self.tallies);
        index.clear();
        tallies.clear();
        let _ = BUFFERS.try_with(|b| {
            if let Ok(mut b) = b.try_borrow_mut() {
                *b = Buffers { index, tallies };
            }
        });
    }
}

/// Tallies the kept words of `text`.
fn tally_words(s: &Settings, text: &str, tallies: &mut Tallies<'_>) {
    SCRATCH.with(|scratch| {
        let mut scratch = scratch.borrow_mut();
        s.segmenter.for_each_token(text, &mut scratch, |token| {
            if keeps(s, &token) {
                let hash = s.hash.hash(token.bytes, s.width);
                tallies.add(token.bytes, token.han_word, hash);
            }
        });
    });
}

/// The fingerprint of `text` under settings that are not streamed.
pub(super) fn fingerprint(s: &Settings, text: &str) -> Fingerprint {
    if s.features == FeatureKind::Words && s.weighting != Weighting::TextRank && s.top_k.is_none() {
        let mut tallies = Tallies::new(s, false);
        tally_words(s, text, &mut tallies);
        return tallies.fingerprint(text);
    }
    accumulate(s, text, &collect_features(s, text, false))
}

/// Distinct features with their weights, in order of first occurrence.
pub(super) fn collect_features(s: &Settings, text: &str, keep_text: bool) -> Vec<WeightedFeature> {
    let mut features = if s.features == FeatureKind::Words && s.weighting != Weighting::TextRank {
        // Words are tallied as they come, with no list of tokens.
        let mut tallies = Tallies::new(s, keep_text);
        tally_words(s, text, &mut tallies);
        tallies.weighted()
    } else {
        let (arena, spans) = tokens(s, text);
        let tokens: Vec<&str> = spans.iter().map(|&(a, b)| &arena[a..b]).collect();
        if s.weighting == Weighting::TextRank {
            // TextRank ranks words; the builder allows it with words only.
            textrank::scores(&tokens)
                .into_iter()
                .map(|(t, score)| WeightedFeature {
                    text: if keep_text {
                        t.to_string()
                    } else {
                        String::new()
                    },
                    hash: s.hash.hash(t.as_bytes(), s.width),
                    weight: score,
                })
                .collect()
        } else {
            let mut tallies = Tallies::new(s, keep_text);
            let mut buffer = String::new();
            for_each_feature(s.features, &tokens, &mut buffer, |feature| {
                tallies.add(
                    feature.as_bytes(),
                    None,
                    s.hash.hash(feature.as_bytes(), s.width),
                );
            });
            tallies.weighted()
        }
    };
    if let Some(k) = s.top_k {
        keep_top(&mut features, k);
    }
    features
}

/// Keeps the `k` heaviest features (earlier first among equals), in their
/// original order.
fn keep_top(features: &mut Vec<WeightedFeature>, k: usize) {
    if features.len() <= k {
        return;
    }
    let mut order: Vec<usize> = (0..features.len()).collect();
    order.sort_by(|&a, &b| {
        features[b]
            .weight
            .total_cmp(&features[a].weight)
            .then(a.cmp(&b))
    });
    let mut keep = vec![false; features.len()];
    for &i in &order[..k] {
        keep[i] = true;
    }
    let mut i = 0;
    features.retain(|_| {
        i += 1;
        keep[i - 1]
    });
}
