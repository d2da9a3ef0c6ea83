//! Documents deduplicated as they arrive: each batch judged, document by
//! document in order, against every document kept before it (earlier
//! batches' and its own earlier ones), and its kept documents stored for
//! the next batch.
//!
//! This is `neardup dedup`'s greedy keep-first grouping, run one batch at a
//! time: a document is dropped exactly when the [`Rule`] calls it a
//! near-duplicate of a kept one (found within k bits, or by the
//! short-document rule at any distance, and verified by the texts), so
//! that three batches keep what one run over their concatenation keeps.
//! The kept documents live in a store (fingerprint, text, short-document
//! keys): the one `neardup dedup --save-index` writes, `--against` reads
//! and `neardup serve` serves.

use std::path::Path;
use std::sync::Mutex;

use neardup_core::Fingerprint;
use neardup_store::{
    AnyStore, Duplicate, Insert, Judge, StoreOptions, StoreSettings, Write, Written,
};
use rayon::prelude::*;

use crate::error::{Error, Mismatch, Result};
use crate::incremental::{index_settings, keyed_for, searched_by};
use crate::rule::Rule;
use crate::verified_texts::VerifiedTexts;

/// The bytes of stored texts' sketches a [`Deduper`] keeps between
/// batches: a stored page is the candidate of each of its later copies.
const SKETCH_CACHE_BYTES: usize = 64 << 20;

/// Deduplicates documents batch by batch against a store of those kept.
///
/// ```
/// use neardup_dedup::{Deduper, Rule};
///
/// let deduper = Deduper::temporary(Rule::new()?)?;
/// let day1 = [("a", "the river rose in the night and the town woke to water in every street")];
/// let day2 = [("b", "the river rose in the night and the town woke to water in every lane"),
///             ("c", "a recipe for bread: flour, water, salt and yeast, and a warm room")];
/// assert!(deduper.add(&day1)?[0].is_none(), "kept");
/// let fates = deduper.add(&day2)?;
/// assert_eq!(fates[0].as_ref().map(|d| d.id.as_str()), Some("a"));
/// assert!(fates[1].is_none());
/// assert_eq!(deduper.len(), 2);
/// # Ok::<(), neardup_dedup::Error>(())
/// ```
pub struct Deduper {
    store: AnyStore,
    rule: Rule,
    /// The rule's judge of texts; `None` when it verifies nothing
    /// (fingerprints alone).
    judge: Option<VerifiedTexts>,
    /// Whether documents are stored with their short-document keys.
    keyed: bool,
    /// Held by the batch being added: its ids are checked, then written,
    /// with no other batch between.
    adding: Mutex<()>,
    /// The folder of a deduper made without one, removed with it.
    _scratch: Option<tempfile::TempDir>,
}

impl Deduper {
    /// A deduper whose kept documents are in the store at `dir`: the one
    /// there (it keeps texts, made for this rule's width, k and
    /// short-document keys) or, when `dir` holds none, a new one recording
    /// the settings of the rule's fingerprinter.
    ///
    /// # Errors
    ///
    /// A store made for other settings (said, with what to do), one locked
    /// by another writer, a directory that cannot be written.
    pub fn open(dir: &Path, rule: Rule) -> Result<Deduper> {
        let wanted = index_settings(&rule);
        let store = match StoreSettings::of(dir)? {
            Some(stored) => {
                fits(&stored, &wanted, &rule).map_err(|mismatch| Error::Against {
                    path: dir.to_path_buf(),
                    mismatch,
                })?;
                AnyStore::open(dir, None, StoreOptions::default())?
            }
            None => AnyStore::open(dir, Some(&wanted), StoreOptions::default())?,
        };
        Ok(Deduper::over(store, rule))
    }

    /// A deduper whose kept documents are in a temporary folder, removed
    /// when it is dropped.
    ///
    /// # Errors
    ///
    /// No temporary folder can be made or written.
    pub fn temporary(rule: Rule) -> Result<Deduper> {
        let scratch = tempfile::Builder::new()
            .prefix("neardup-deduper-")
            .tempdir()
            .map_err(|e| Error::io("make a temporary folder in", std::env::temp_dir(), e))?;
        let settings = index_settings(&rule);
        let store = AnyStore::open(scratch.path(), Some(&settings), StoreOptions::default())?;
        let mut deduper = Deduper::over(store, rule);
        deduper._scratch = Some(scratch);
        Ok(deduper)
    }

    fn over(store: AnyStore, rule: Rule) -> Deduper {
        let settings = store.settings();
        let judge = rule
            .verifier()
            .filter(|_| settings.texts)
            .map(|_| VerifiedTexts::new(rule.clone(), SKETCH_CACHE_BYTES));
        let keyed = keyed_for(settings, &rule);
        Deduper {
            store,
            rule,
            judge,
            keyed,
            adding: Mutex::new(()),
            _scratch: None,
        }
    }

    /// Judges `docs` (id, text), in order, against the documents kept
    /// before each, and stores the kept ones, in one transaction: for each
    /// document, `None` when kept, else the kept document it duplicates
    /// (the nearest), with their distance and similarity.
    ///
    /// # Errors
    ///
    /// [`Error::Store`] naming an id that repeats in `docs` or is stored
    /// already (nothing is written), or when the store cannot be written
    /// (nothing is written).
    pub fn add(&self, docs: &[(&str, &str)]) -> Result<Vec<Option<Duplicate>>> {
        let ids: Vec<&str> = docs.iter().map(|&(id, _)| id).collect();
        let _adding = self.adding.lock().unwrap_or_else(|e| e.into_inner());
        self.store.check_new_ids(&ids)?;
        let fingerprinter = self.rule.fingerprinter();
        let k = self.rule.k_bits();
        let writes: Vec<Write<u128>> = docs
            .par_iter()
            .map(|&(id, text)| {
                let fingerprint = fingerprinter.fingerprint(text);
                let mut insert = Insert::new(fingerprint.bits(), k)
                    .id(id)
                    .text(text)
                    .only_if_unique();
                if self.keyed {
                    let prepared = self.rule.prepare_fingerprinted(text, fingerprint);
                    insert = insert.keys(self.rule.short_keys(&prepared));
                }
                Write::Insert(insert)
            })
            .collect();
        let judge = self.judge.as_ref().map(|j| j as &dyn Judge);
        let written = self.store.write(writes, judge)?;
        Ok(written
            .into_iter()
            .map(|w| match w {
                Written::NotUnique { duplicates, .. } => duplicates.into_iter().next(),
                _ => None,
            })
            .collect())
    }

    /// How many documents are kept (stored).
    pub fn len(&self) -> usize {
        self.store.stats().documents
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The rule documents are judged by.
    pub fn rule(&self) -> &Rule {
        &self.rule
    }

    /// The store of the kept documents.
    pub fn store(&self) -> &AnyStore {
        &self.store
    }

    /// The fingerprint of `text`, as [`Deduper::add`] makes it.
    pub fn fingerprint(&self, text: &str) -> Fingerprint {
        self.rule.fingerprinter().fingerprint(text)
    }
}

/// Whether a store of settings `stored` can hold the documents a deduper
/// by `rule` keeps (which would make one of settings `wanted`); else what
/// differs and what to do.
fn fits(
    stored: &StoreSettings,
    wanted: &StoreSettings,
    rule: &Rule,
) -> std::result::Result<(), Mismatch> {
    searched_by(stored, rule)?;
    if rule.verifier().is_some() && !stored.texts {
        return Err(Mismatch::NoTexts);
    }
    if stored.short_keys != wanted.short_keys && rule.verifier().is_some() {
        let rule_of = |keys: &Option<String>| keys.clone().unwrap_or_else(|| "no rule".into());
        return Err(Mismatch::ShortKeys {
            stored: rule_of(&stored.short_keys),
            wanted: rule_of(&wanted.short_keys),
        });
    }
    if let Some(difference) = stored.fingerprint_difference(wanted) {
        return Err(Mismatch::Fingerprints { difference });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Dedup, Memory, Silent};

    /// Pages of shared words with a few changed, long and short, and exact
    /// copies: every way the rule finds a pair.
    fn corpus() -> Vec<(String, String)> {
        let words: Vec<String> = (0..60).map(|i| format!("w{i}")).collect();
        let mut docs = Vec::new();
        for i in 0..40 {
            let mut page = words.clone();
            page[i % 60] = format!("x{}", i % 7);
            page[(i * 13) % 60] = format!("y{}", i % 5);
            let text = if i % 4 == 0 {
                page[..12].join(" ")
            } else {
                page.join(" ")
            };
            docs.push((format!("d{i}"), text.clone()));
            if i % 9 == 0 {
                docs.push((format!("copy{i}"), text));
            }
        }
        docs
    }

    #[test]
    fn three_batches_keep_what_one_run_keeps() {
        let docs = corpus();
        let rule = Rule::new().unwrap();
        let pairs: Vec<(&str, &str)> = docs.iter().map(|(i, t)| (&**i, &**t)).collect();
        let outcome = Dedup::with_rule(rule.clone())
            .unwrap()
            .run(&Memory::new(&pairs[..]), &Silent)
            .unwrap();
        let want: Vec<bool> = outcome
            .fates()
            .iter()
            .map(|f| f == crate::Fate::Kept)
            .collect();
        let deduper = Deduper::temporary(rule).unwrap();
        let mut got = Vec::new();
        for batch in pairs.chunks(pairs.len() / 3 + 1) {
            got.extend(deduper.add(batch).unwrap().iter().map(Option::is_none));
        }
        assert_eq!(got, want);
        assert!(want.iter().filter(|&&k| !k).count() > 10, "pairs to find");
        assert_eq!(deduper.len(), want.iter().filter(|&&k| k).count());
    }

    #[test]
    fn ids_are_new_and_unique() {
        let deduper = Deduper::temporary(Rule::new().unwrap()).unwrap();
        deduper.add(&[("a", "one text")]).unwrap();
        let taken = deduper.add(&[("b", "two"), ("a", "three")]).unwrap_err();
        assert!(taken.to_string().contains("\"a\""), "{taken}");
        assert!(deduper.add(&[("c", "x"), ("c", "y")]).is_err());
        assert_eq!(deduper.len(), 1, "nothing written by a refused batch");
    }

    #[test]
    fn a_store_of_other_settings_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let rule = Rule::new().unwrap();
        Deduper::open(dir.path(), rule.clone())
            .unwrap()
            .add(&[("a", "a text")])
            .unwrap();
        let mut wider = rule.clone();
        wider.k(12);
        let refused = Deduper::open(dir.path(), wider).err().unwrap();
        assert!(refused.to_string().contains("at most 8 bits"), "{refused}");
        let again = Deduper::open(dir.path(), rule.clone()).unwrap();
        assert_eq!(again.len(), 1);
        let mut shingled = Rule::with_fingerprinter(
            neardup_core::Fingerprinter::builder(neardup_core::Profile::Auto)
                .features(neardup_core::FeatureKind::Shingles(2))
                .build()
                .unwrap(),
        );
        shingled.k(rule.k_bits());
        let refused = Deduper::open(dir.path(), shingled).err().unwrap();
        assert!(
            refused
                .to_string()
                .contains("features the profile's default there, shingles:2 here"),
            "{refused}"
        );
    }
}
