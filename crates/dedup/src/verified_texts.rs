//! How a store's writes and queries decide that a new text is a duplicate
//! of a stored one (for `neardup serve` and the [`crate::Deduper`]): by
//! the [`Rule`] of `neardup dedup` (its threshold or verification, its k
//! and its short-document rule), with stored texts prepared once and kept
//! for the next comparison.
//!
//! A templated page is a candidate of every page of its template, so the
//! same stored texts are judged again and again; sketching one costs far
//! more than comparing two sketches. The cache holds sketches by their
//! text's 128-bit hash: a text's sketch depends on nothing else, so
//! nothing needs invalidating when a document is deleted or its id
//! reused. The hash is keyed by a secret drawn when the judge is made,
//! so that a client cannot make two texts share a key on purpose.

use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};
use std::sync::{Arc, Mutex};

use neardup_store::{Against, Judge};
use xxhash_rust::xxh3::{SecretInput, xxh3_128_with_secret_input};

use crate::rule::{Prepared, Rule};

/// Bytes of the secret that keys the texts' hash (XXH3's default size).
const SECRET_BYTES: usize = 192;

/// A store's [`Judge`]: texts judged by a [`Rule`], the new text
/// prepared once for all its candidates, stored texts' preparations (their
/// fingerprints and sketches) kept up to a budget of bytes.
///
/// ```
/// use neardup_dedup::{Rule, Verification};
/// use neardup_dedup::VerifiedTexts;
/// use neardup_store::Judge;
///
/// let mut rule = Rule::new()?;
/// rule.verification(Some(Verification::Jaccard(0.5)));
/// let judge = VerifiedTexts::new(rule, 1 << 20);
/// let against = judge.against("the cat sat on the mat today");
/// assert!(against("the cat sat on the mat today!").is_some());
/// assert!(against("a dog ran in the park").is_none());
/// // The two stored texts' sketches, kept:
/// assert_eq!(judge.cached(), 2);
/// assert!(against("a dog ran in the park").is_none());
/// assert_eq!(judge.cached(), 2);
/// # Ok::<(), neardup_dedup::Error>(())
/// ```
pub struct VerifiedTexts {
    rule: Rule,
    secret: SecretInput<[u8; SECRET_BYTES]>,
    sketches: Mutex<Sketches>,
}

/// Sketches by text hash, and their bytes.
struct Sketches {
    by_text: HashMap<u128, Arc<Prepared>>,
    bytes: usize,
    budget: usize,
}

impl VerifiedTexts {
    /// A judge by `rule`, keeping stored texts' preparations up to
    /// `budget` bytes (all are dropped when it is reached: the next
    /// comparisons make them again; one larger than the whole budget is
    /// never kept).
    pub fn new(rule: Rule, budget: usize) -> VerifiedTexts {
        // Random per process: std's RandomState draws SipHash keys from
        // the operating system.
        let state = RandomState::new();
        let mut secret = [0u8; SECRET_BYTES];
        for (i, chunk) in secret.chunks_exact_mut(8).enumerate() {
            chunk.copy_from_slice(&state.hash_one(i).to_le_bytes());
        }
        VerifiedTexts {
            rule,
            secret: SecretInput::new(secret),
            sketches: Mutex::new(Sketches {
                by_text: HashMap::new(),
                bytes: 0,
                budget,
            }),
        }
    }

    /// How many sketches are kept.
    pub fn cached(&self) -> usize {
        self.lock().by_text.len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Sketches> {
        self.sketches.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Stored text `text` prepared, kept or made (and kept).
    fn prepared(&self, text: &str) -> Arc<Prepared> {
        let key = xxh3_128_with_secret_input(text.as_bytes(), &self.secret);
        if let Some(sketch) = self.lock().by_text.get(&key) {
            return sketch.clone();
        }
        // Made outside the lock: other threads judge meanwhile.
        let sketch = Arc::new(self.rule.prepare(text));
        let size = sketch.sketch().map_or(0, <[u64]>::len) * size_of::<u64>() + 96;
        let mut sketches = self.lock();
        if size > sketches.budget || sketches.by_text.contains_key(&key) {
            return sketch;
        }
        let mut dropped = HashMap::new();
        if sketches.bytes + size > sketches.budget {
            dropped = std::mem::take(&mut sketches.by_text);
            sketches.bytes = 0;
        }
        sketches.by_text.insert(key, sketch.clone());
        sketches.bytes += size;
        drop(sketches);
        // The dropped sketches are freed here, outside the lock.
        drop(dropped);
        sketch
    }
}

impl Judge for VerifiedTexts {
    fn against<'a>(&'a self, new: &'a str) -> Against<'a> {
        // Not kept: a query's text, or a text refused as a duplicate, is
        // never a stored one; an inserted one is kept once judged.
        let new = self.rule.prepare(new);
        Box::new(move |stored| {
            let verdict = self.rule.judge_prepared(&new, &self.prepared(stored));
            verdict.near.then_some(verdict.similarity.unwrap_or(1.0))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::Verification;

    fn rule(v: Verification) -> Rule {
        let mut rule = Rule::new().unwrap();
        rule.verification(Some(v));
        rule
    }

    fn texts() -> Vec<String> {
        let words: Vec<String> = (0..40).map(|i| format!("w{i}")).collect();
        (0..12)
            .map(|i| {
                let mut page = words.clone();
                page[i % 40] = format!("x{i}");
                page[(i * 7) % 40] = format!("y{}", i / 3);
                page.join(" ")
            })
            .collect()
    }

    /// What the rule says of a pair, preparing both anew.
    fn direct(v: Verification, a: &str, b: &str) -> Option<f64> {
        let verdict = rule(v).judge(a, b);
        verdict.near.then(|| verdict.similarity.unwrap_or(1.0))
    }

    #[test]
    fn kept_sketches_judge_as_fresh_ones_do_whatever_the_budget() {
        let texts = texts();
        for v in [Verification::Jaccard(0.7), Verification::Words(0.05)] {
            // Room for every sketch; for two or so (cleared again and
            // again); for none.
            for budget in [1 << 20, 1_000, 10] {
                let judge = VerifiedTexts::new(rule(v), budget);
                for _ in 0..2 {
                    for a in &texts {
                        let against = judge.against(a);
                        for b in &texts {
                            assert_eq!(against(b), direct(v, a, b), "{v} {budget}");
                        }
                    }
                }
                let kept = judge.lock().bytes;
                assert!(kept <= budget, "{kept} bytes kept of {budget}");
            }
        }
    }

    #[test]
    fn the_budget_bounds_what_is_kept() {
        let texts = texts();
        let roomy = VerifiedTexts::new(rule(Verification::Jaccard(0.8)), 1 << 20);
        let tight = VerifiedTexts::new(rule(Verification::Jaccard(0.8)), 1_000);
        for judge in [&roomy, &tight] {
            let against = judge.against(&texts[0]);
            for b in &texts {
                against(b);
            }
        }
        assert_eq!(roomy.cached(), texts.len());
        assert!(tight.cached() < texts.len() / 2, "{}", tight.cached());
    }

    #[test]
    fn a_sketch_past_the_whole_budget_is_not_kept_and_clears_nothing() {
        let texts = texts();
        let judge = VerifiedTexts::new(rule(Verification::Jaccard(0.8)), 1_000);
        let against = judge.against(&texts[0]);
        against(&texts[1]);
        assert_eq!(judge.cached(), 1);
        let huge: Vec<String> = (0..1_000).map(|i| format!("v{i}")).collect();
        assert_eq!(against(&huge.join(" ")), None);
        assert_eq!(judge.cached(), 1);
    }

    #[test]
    fn judges_started_apart_key_texts_apart() {
        let (a, b) = (
            VerifiedTexts::new(rule(Verification::Jaccard(0.8)), 1 << 20),
            VerifiedTexts::new(rule(Verification::Jaccard(0.8)), 1 << 20),
        );
        let text = b"the same text";
        assert_ne!(
            xxh3_128_with_secret_input(text, &a.secret),
            xxh3_128_with_secret_input(text, &b.secret)
        );
    }
}
