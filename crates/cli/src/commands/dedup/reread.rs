//! The pass that reads the inputs again for the few documents the outputs
//! name or show: their ids, and the texts of the report's samples. Only
//! fingerprints stay in memory during the run; ids are read back at the end.

use std::collections::HashMap;

use anyhow::Result;
use neardup_dedup::{Files, Progress, Source, Stage};

/// The ids of the documents of a run that outputs name, in one string:
/// 8 bytes per document plus the ids asked for.
pub(super) struct Ids {
    text: String,
    /// Where the id of each document ends in `text`; it starts where the
    /// one before ends. An id not asked for is empty.
    ends: Vec<u64>,
}

impl Ids {
    /// The id of document `doc` (empty if it was not asked for).
    pub fn get(&self, doc: u32) -> &str {
        let d = doc as usize;
        let end = self.ends.get(d).map_or(0, |&e| e as usize);
        let start = if d == 0 {
            0
        } else {
            self.ends.get(d - 1).map_or(end, |&e| e as usize)
        };
        self.text.get(start..end).unwrap_or("")
    }
}

/// The ids of the documents `want_id` asks for, and the texts of those in
/// `want_text`, read back from `files`, which held `n` documents.
pub(super) fn look_up(
    files: &Files,
    progress: &dyn Progress,
    n: usize,
    want_id: impl Fn(u32) -> bool + Sync,
    want_text: &[u32],
) -> Result<(Ids, HashMap<u32, String>)> {
    let mut ids = Ids {
        text: String::new(),
        ends: Vec::with_capacity(n),
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
                // Documents not asked for end where the one before did.
                let end = ids.text.len() as u64;
                ids.ends.resize(doc.number as usize, end);
                ids.text.push_str(doc.id);
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
    let end = ids.text.len() as u64;
    ids.ends.resize(n, end);
    Ok((ids, texts))
}
