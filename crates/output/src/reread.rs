//! The pass that reads the inputs again for the few documents the outputs
//! name or show: their ids, and the texts of the report's samples. Only
//! fingerprints stay in memory during the run; ids are read back at the end.

use std::collections::HashMap;

use crate::error::Result;
use neardup_dedup::{Files, Progress, Source, Stage};

/// The ids of the documents of a run that outputs name, in one string:
/// 12 bytes and the id for each document asked for, nothing for the others.
pub(crate) struct Ids {
    text: String,
    /// The documents asked for, in increasing order.
    docs: Vec<u32>,
    /// Where the id of each of `docs` ends in `text`; it starts where the
    /// one before ends.
    ends: Vec<u64>,
}

impl Ids {
    /// The id of document `doc` (empty if it was not asked for).
    pub fn get(&self, doc: u32) -> &str {
        let Ok(i) = self.docs.binary_search(&doc) else {
            return "";
        };
        let end = self.ends[i] as usize;
        let start = i
            .checked_sub(1)
            .map_or(0, |before| self.ends[before] as usize);
        self.text.get(start..end).unwrap_or("")
    }
}

/// The ids of the documents `want_id` asks for, and the texts of those in
/// `want_text`, read back from `files`, which held `n` documents.
pub(crate) fn look_up(
    files: &Files,
    progress: &dyn Progress,
    n: usize,
    want_id: impl Fn(u32) -> bool + Sync,
    want_text: &[u32],
) -> Result<(Ids, HashMap<u32, String>)> {
    let mut ids = Ids {
        text: String::new(),
        docs: Vec::new(),
        ends: Vec::new(),
    };
    let mut texts = HashMap::new();
    progress.stage(Stage::Reading, files.total_bytes());
    let now = files.revisit(
        progress,
        // A document past `n` (the inputs grew) is not wanted; the count
        // below says so.
        &|d| (d as usize) < n && (want_id(d) || want_text.contains(&d)),
        &mut |batch| {
            for doc in batch {
                // Batches come in document order.
                ids.text.push_str(doc.id);
                ids.docs.push(doc.number);
                ids.ends.push(ids.text.len() as u64);
                if want_text.contains(&doc.number) {
                    texts.insert(doc.number, doc.text.to_string());
                }
            }
            Ok(())
        },
    )?;
    progress.finish();
    if now != n {
        return Err(neardup_dedup::Error::Changed { first: n, now }.into());
    }
    Ok((ids, texts))
}
