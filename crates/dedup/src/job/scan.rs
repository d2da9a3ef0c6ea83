//! The job's first pass over the source: each document fingerprinted,
//! recorded and, with the short-document rule, sketched.

use std::path::Path;

use neardup_corpus::FieldValue;
use rayon::prelude::*;
use xxhash_rust::xxh3::xxh3_64;

use super::{Dedup, MAX_DOCUMENTS};
use crate::column::{Array, Column};
use crate::error::{Error, Result};
use crate::incremental::{Index, Indexed};
use crate::keep::Keep;
use crate::outcome::{Record, WHOLE};
use crate::prefix_filter::ElementCounts;
use crate::progress::{Progress, Skipped, Stage};
use crate::sketches::SketchFile;
use crate::source::Source;

impl Dedup {
    /// The first pass: every document's record, text hash, key, and
    /// whether it is short; with the short-document rule, how often each
    /// element of the short documents' sketches occurs.
    pub(super) fn scan<'s>(
        &self,
        source: &dyn Source,
        progress: &dyn Progress,
        spill: &'s Path,
        memory: u64,
        index: Option<&Index>,
    ) -> Result<Scanned<'s>> {
        let mut found_in_index = Vec::new();
        // Each column takes up to an eighth of the budget in memory.
        let mut records = Column::<Record>::new(memory / 8, spill);
        let mut text_hashes = Column::<u64>::new(memory / 8, spill);
        let mut short_docs = Column::<u32>::new(memory / 8, spill);
        let mut member_docs = Column::<[u32; 2]>::new(memory / 8, spill);
        let mut keys = Vec::new();
        let shorts = self.rule.verification.filter(|_| self.rule.short_rule);
        let counts = shorts.map(|_| ElementCounts::new());
        let mut sketches = match shorts {
            Some(_) => Some(SketchFile::new(spill)?),
            None => None,
        };
        progress.stage(Stage::Fingerprinting, source.total_bytes());
        let mut said = false;
        let skipped = source.scan(progress, &mut |batch| {
            if progress.cancelled() {
                return Err(Error::Cancelled);
            }
            if records.len() + batch.len() > MAX_DOCUMENTS {
                return Err(Error::TooManyDocuments { max: MAX_DOCUMENTS });
            }
            let computed: Vec<(u128, u64, Option<Held>, IndexHit)> = batch
                .par_iter()
                .map(|doc| {
                    let fingerprint = self.rule.fingerprinter.fingerprint(doc.text).bits();
                    let in_index = match index {
                        Some(index) => index.nearest(doc.text, fingerprint)?,
                        None => None,
                    };
                    // Short and near-short documents, with their sketches
                    // (kept for the prefix filter and verification) and
                    // their elements counted for the filter's order.
                    let reach = match (shorts, &counts) {
                        (Some(verification), Some(counts)) => {
                            let (short, near_short) = self.rule.length_class(doc.text);
                            near_short.then(|| {
                                let sketch = verification.sketch(doc.text);
                                counts.add(&sketch);
                                (short, sketch)
                            })
                        }
                        _ => None,
                    };
                    Ok((fingerprint, xxh3_64(doc.text.as_bytes()), reach, in_index))
                })
                .collect::<Result<_>>()?;
            for (doc, (fingerprint, text_hash, reach, in_index)) in batch.iter().zip(computed) {
                if index.is_some() {
                    found_in_index.push(in_index);
                }
                let d = records.len() as u32;
                if let (Some((short, sketch)), Some(file)) = (reach, &mut sketches) {
                    let (_, len) = file.append(&sketch)?;
                    member_docs.push([d, len])?;
                    if short {
                        short_docs.push(d)?;
                    }
                }
                records.push(Record {
                    fingerprint,
                    line: doc.origin.line.unwrap_or(WHOLE),
                    bytes: u32::try_from(doc.text.len()).unwrap_or(u32::MAX),
                    file: doc.origin.file,
                })?;
                text_hashes.push(text_hash)?;
                if self.keep == Keep::Max || self.keep == Keep::Min {
                    keys.push(doc.key.cloned());
                }
            }
            if !said && (records.spilled() || text_hashes.spilled()) {
                said = true;
                progress.spilling("the documents' records", spill);
            }
            Ok(())
        })?;
        progress.finish();
        Ok(Scanned {
            records: records.freeze()?,
            text_hashes: text_hashes.freeze()?,
            short_docs: short_docs.freeze()?,
            member_docs: member_docs.freeze()?,
            member_sketches: sketches,
            element_counts: counts,
            keys,
            indexed: Indexed::number(found_in_index),
            skipped,
        })
    }
}

/// A document the prefix filter holds: whether it is short, and its
/// sketch.
pub(super) type Held = (bool, Vec<u64>);

/// What the first pass keeps.
pub(super) struct Scanned<'s> {
    pub(super) records: Array<Record>,
    pub(super) text_hashes: Array<u64>,
    pub(super) short_docs: Array<u32>,
    /// Documents the prefix filter holds, short and near-short ones, with
    /// the lengths of their sketches, written one after another in
    /// `member_sketches`.
    pub(super) member_docs: Array<[u32; 2]>,
    pub(super) member_sketches: Option<SketchFile<'s>>,
    pub(super) element_counts: Option<ElementCounts>,
    pub(super) keys: Vec<Option<FieldValue>>,
    /// Each document's nearest duplicate in the index run against.
    pub(super) indexed: Indexed,
    pub(super) skipped: Skipped,
}

/// A document's nearest duplicate in the index run against: its id and
/// distance.
pub(super) type IndexHit = Option<crate::incremental::Found>;
