//! Incremental runs: a batch deduplicated against the documents kept by
//! earlier runs, which a store holds, and the kept documents of a run added
//! to one.
//!
//! The store keeps what the [`Rule`] needs to judge a later document
//! exactly: each kept document's fingerprint, its text, and its
//! short-document keys. A document of the batch is then dropped for a
//! stored one exactly when the rule calls the two near-duplicates (found
//! within k bits, or by the short-document rule at any distance, and
//! verified), so that a corpus deduplicated day by day keeps what one run
//! over all the days keeps. A store made before texts were kept is judged
//! by fingerprint alone, as it was then.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use neardup_core::Fingerprint;
use neardup_index::Neighbour;
use neardup_store::{AnyStore, Insert, StoreOptions, StoreSettings};

use crate::error::{Error, Mismatch, Result};
use crate::grouping::Fate;
use crate::outcome::Outcome;
use crate::progress::{Progress, Stage};
use crate::rule::{FoundBy, Prepared, Rule};
use crate::source::Source;
use crate::why::Why;

/// For each document of a run, the nearest stored one it duplicates (a
/// number for its id, and their distance) and why, and the ids by number.
#[derive(Debug, Default)]
pub(crate) struct Indexed {
    pub nearest: Vec<Option<(u32, u32)>>,
    pub why: Vec<Option<Why>>,
    pub names: HashMap<u32, String>,
}

/// A stored document a new one duplicates: its id, their distance, and
/// why.
pub(crate) type Found = (String, u32, Why);

impl Indexed {
    /// Numbers the ids of `found`, each document's nearest stored duplicate.
    pub(crate) fn number(found: Vec<Option<Found>>) -> Indexed {
        let mut numbers: HashMap<String, u32> = HashMap::new();
        let mut names = HashMap::new();
        let why = found.iter().map(|f| f.as_ref().map(|f| f.2)).collect();
        let nearest = found
            .into_iter()
            .map(|hit| {
                hit.map(|(id, distance, _)| {
                    let next = numbers.len() as u32;
                    let number = *numbers.entry(id.clone()).or_insert(next);
                    names.entry(number).or_insert(id);
                    (number, distance)
                })
            })
            .collect();
        Indexed {
            nearest,
            why,
            names,
        }
    }

    /// Whether document `doc` duplicates an indexed one.
    pub(crate) fn has(&self, doc: u32) -> bool {
        self.nearest.get(doc as usize).is_some_and(Option::is_some)
    }
}

/// A store of earlier runs' kept documents, as a run judges against it.
pub(crate) struct Index {
    store: AnyStore,
    rule: Rule,
    /// Whether it keeps texts (else: fingerprints alone).
    by_text: bool,
    /// Whether it keeps short-document keys made for this run's rule.
    keyed: bool,
    /// Stored documents prepared (sketched) once for every candidate they
    /// are: a stored page is the candidate of each of its later copies.
    prepared: Mutex<PreparedStored>,
}

/// Stored documents prepared, by id, and the bytes of their sketches; all
/// let go past [`PREPARED_BYTES`].
#[derive(Default)]
struct PreparedStored {
    by_id: HashMap<String, Arc<Prepared>>,
    bytes: usize,
}

/// The bytes of stored documents' sketches a run keeps at once.
const PREPARED_BYTES: usize = 64 << 20;

impl Index {
    /// The store at `dir`, to judge documents by `rule` against.
    ///
    /// # Errors
    ///
    /// A store of another width, one that searches within fewer bits than
    /// the rule's k, or one that cannot be opened.
    pub(crate) fn open(dir: &Path, rule: &Rule) -> Result<Index> {
        let refuse = |mismatch| Error::Against {
            path: dir.to_path_buf(),
            mismatch,
        };
        let store = AnyStore::open_read_only(dir)?;
        let settings = store.settings();
        searched_by(settings, rule).map_err(refuse)?;
        let by_text = settings.texts && rule.verifier().is_some();
        let keyed = keyed_for(settings, rule);
        Ok(Index {
            by_text,
            keyed,
            rule: rule.clone(),
            store,
            prepared: Mutex::default(),
        })
    }

    /// The stored document nearest `text` (fingerprinted `fingerprint`)
    /// that the rule calls its near-duplicate: its id and distance. Without
    /// texts in the store, the nearest within k.
    ///
    /// # Errors
    ///
    /// A store that cannot be read.
    pub(crate) fn nearest(&self, text: &str, fingerprint: u128) -> Result<Option<Found>> {
        let mut hits = self.store.query(fingerprint, self.rule.k_bits())?;
        if !self.by_text {
            let why = Why {
                found_by: FoundBy::Fingerprint,
                similarity: None,
            };
            return Ok(hits.into_iter().next().map(|h| (h.id, h.distance, why)));
        }
        let width = self.rule.fingerprinter().width();
        let new = self
            .rule
            .prepare_fingerprinted(text, Fingerprint::new(fingerprint, width));
        if self.keyed {
            let keys = self.rule.short_keys(&new);
            hits.extend(self.store.query_keys(fingerprint, &keys)?);
            hits.sort_by(|a, b| (a.distance, &a.id).cmp(&(b.distance, &b.id)));
            hits.dedup_by(|a, b| a.id == b.id);
        }
        for Neighbour { id, distance } in hits {
            let Some(stored) = self.stored(&id)? else {
                continue;
            };
            let verdict = self.rule.judge_prepared(&new, &stored);
            if let (true, Some(found_by)) = (verdict.near, verdict.found_by) {
                let similarity = verdict.similarity.map(|s| s as f32);
                let why = Why {
                    found_by,
                    similarity,
                };
                return Ok(Some((id, distance, why)));
            }
        }
        Ok(None)
    }

    /// Stored document `id` prepared by the rule, kept or made (and kept);
    /// `None` when it is gone or has no text.
    fn stored(&self, id: &str) -> Result<Option<Arc<Prepared>>> {
        let lock = || self.prepared.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(prepared) = lock().by_id.get(id) {
            return Ok(Some(prepared.clone()));
        }
        let Some(stored) = self.store.get(id)? else {
            return Ok(None);
        };
        let Some(text) = stored.text else {
            return Ok(None);
        };
        let width = self.rule.fingerprinter().width();
        let prepared = Arc::new(
            self.rule
                .prepare_fingerprinted(&text, Fingerprint::new(stored.fingerprint, width)),
        );
        let size = prepared.sketch().map_or(0, <[u64]>::len) * 8 + id.len() + 96;
        let mut kept = lock();
        if kept.bytes + size > PREPARED_BYTES {
            kept.by_id.clear();
            kept.bytes = 0;
        }
        kept.bytes += size;
        kept.by_id.insert(id.to_string(), prepared.clone());
        Ok(Some(prepared))
    }

    /// Whether the store is judged by fingerprint alone: it keeps no texts
    /// (made before they were kept, or by `neardup index build`).
    pub(crate) fn by_fingerprint_alone(&self) -> bool {
        !self.by_text
    }
}

/// Whether a store of `settings` can be searched for `rule`'s
/// candidates: the same width, and a k at least the rule's; else why not.
pub(crate) fn searched_by(
    settings: &StoreSettings,
    rule: &Rule,
) -> std::result::Result<(), Mismatch> {
    let (width, k) = (rule.fingerprinter().width(), rule.k_bits());
    if settings.width != width {
        return Err(Mismatch::Width {
            store_bits: settings.width.bits(),
            bits: width.bits(),
        });
    }
    if k > settings.k {
        return Err(Mismatch::K {
            store_k: settings.k,
            k,
        });
    }
    Ok(())
}

/// Whether a store of `settings` keeps, with its texts, the
/// short-document keys `rule` makes (so that its short documents are found
/// at any distance): the one test the dedup job, the [`crate::Deduper`]
/// and the service make.
///
/// ```
/// let rule = neardup_dedup::Rule::new()?;
/// let settings = neardup_dedup::index_settings(&rule);
/// assert!(neardup_dedup::keyed_for(&settings, &rule));
/// # Ok::<(), neardup_dedup::Error>(())
/// ```
pub fn keyed_for(settings: &StoreSettings, rule: &Rule) -> bool {
    settings.texts
        && rule.verifier().is_some()
        && settings.short_keys.is_some()
        && settings.short_keys == rule.keying()
}

/// The settings of a new index of documents judged by `rule`: its k, the
/// settings of its fingerprinter, texts kept, and short-document keys for
/// the rule.
///
/// ```
/// let rule = neardup_dedup::Rule::new()?;
/// let settings = neardup_dedup::index_settings(&rule);
/// assert!(settings.texts && settings.short_keys.as_deref() == Some("jaccard:0.8"));
/// assert_eq!(settings.fingerprint, Some(rule.fingerprinter().settings()));
/// # Ok::<(), neardup_dedup::Error>(())
/// ```
pub fn index_settings(rule: &Rule) -> StoreSettings {
    let mut settings = StoreSettings::builder(rule.k_bits());
    settings
        .fingerprint(rule.fingerprinter().settings())
        .texts(true);
    if let Some(keying) = rule.keying() {
        settings.short_keys(keying);
    }
    settings.build()
}

/// The documents `outcome` kept, named by `id`, as inserts into an index
/// of `settings`: each with what `rule` needs to judge later documents
/// against it (its text and short-document keys, when the index keeps
/// them), their texts read from `source` again.
///
/// # Errors
///
/// A source that cannot be read again, or that changed.
pub fn index_documents(
    rule: &Rule,
    settings: &StoreSettings,
    (source, progress): (&dyn Source, &dyn Progress),
    outcome: &Outcome,
    id: &dyn Fn(u32) -> String,
) -> Result<Vec<Insert<u128>>> {
    let records = outcome.records();
    let kept: Vec<bool> = outcome.fates().iter().map(|f| f == Fate::Kept).collect();
    let keyed = keyed_for(settings, rule);
    let width = rule.fingerprinter().width();
    let mut inserts = Vec::new();
    progress.stage(Stage::Reading, source.total_bytes());
    let now = source.revisit(
        progress,
        &|d| kept.get(d as usize) == Some(&true),
        &mut |batch| {
            for doc in batch {
                let fingerprint = records[doc.number as usize].fingerprint();
                let mut insert = Insert::new(fingerprint, rule.k_bits()).id(id(doc.number));
                if settings.texts {
                    if keyed {
                        let prepared = rule
                            .prepare_fingerprinted(doc.text, Fingerprint::new(fingerprint, width));
                        insert = insert.keys(rule.short_keys(&prepared));
                    }
                    insert = insert.text(doc.text);
                }
                inserts.push(insert);
            }
            Ok(())
        },
    )?;
    progress.finish();
    if now != records.len() {
        return Err(Error::Changed {
            first: records.len(),
            now,
        });
    }
    Ok(inserts)
}

/// Adds the documents `outcome` kept, named by `id`, to the store at
/// `dir` with what `rule` needs to judge later documents against them
/// ([`index_documents`]), reading their texts from `source` again. Creates
/// the store ([`index_settings`], recording the settings of the rule's
/// fingerprinter) if `dir` holds none. (`neardup dedup --save-index` adds
/// them as a labelled batch, undone if its run does not finish.)
///
/// ```
/// use neardup_dedup::{Dedup, DedupBuilder, Memory, Rule, Silent, save_to_index};
///
/// let dir = tempfile::tempdir()?;
/// let day1 = ["the river rose in the night and the town woke to water in every street"];
/// let day2 = ["the river rose in the night and the town woke to water in every lane",
///             "a recipe for bread: flour, water, salt and yeast, and a warm room"];
/// let rule = Rule::new()?;
/// let outcome = Dedup::with_rule(rule.clone())?.run(&Memory::new(&day1[..]), &Silent)?;
/// save_to_index(dir.path(), &rule, &Memory::new(&day1[..]), &outcome, &|d| format!("day1-{d}"), &Silent)?;
/// let job = DedupBuilder::with_rule(rule.clone()).against(Some(dir.path().to_path_buf())).build()?;
/// let outcome = job.run(&Memory::new(&day2[..]), &Silent)?;
/// assert_eq!(outcome.unique(), 1, "the first of day 2 is a near-duplicate of day 1's");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// Kept documents whose ids repeat or are stored already (nothing is
/// written), a store of other settings, a source that cannot be read
/// again, a directory that cannot be written.
pub fn save_to_index(
    dir: &Path,
    rule: &Rule,
    source: &dyn Source,
    outcome: &Outcome,
    id: &dyn Fn(u32) -> String,
    progress: &dyn Progress,
) -> Result<usize> {
    let store = match StoreSettings::of(dir)? {
        Some(_) => AnyStore::open(dir, None, StoreOptions::default())?,
        None => AnyStore::open(dir, Some(&index_settings(rule)), StoreOptions::default())?,
    };
    let settings = store.settings().clone();
    let inserts = index_documents(rule, &settings, (source, progress), outcome, id)?;
    let saved = inserts.len();
    store.insert_documents(inserts)?;
    Ok(saved)
}
