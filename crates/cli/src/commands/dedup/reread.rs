//! The passes that read the inputs again, for the few documents a later
//! step needs: the texts of candidate pairs (to verify them), and the ids and
//! texts of the documents that the outputs name or show. Only fingerprints
//! stay in memory between passes; anything else is read back when needed.

use std::collections::HashMap;

use anyhow::{Result, bail};
use neardup_corpus::{Corpus, Document};
use neardup_dedup::Verification;
use neardup_index::Pair;
use rayon::prelude::*;

use crate::progress::Progress;

/// Texts gathered before they are shingled on all cores together.
const BATCH_BYTES: usize = 16 << 20;

/// How a pass reads the inputs again.
pub(super) struct Pass {
    /// Skip the records skipped the first time.
    pub skip_invalid: bool,
    /// No progress bar.
    pub quiet: bool,
    /// What the bar says the pass is for.
    pub stage: &'static str,
}

/// Reads `corpus` again and hands each document `wanted` asks for, with its
/// number, to `visit`. Errors skipped on the first pass are skipped again;
/// a corpus that yields another number of documents than `n` has changed.
pub(super) fn reread(
    corpus: &Corpus,
    pass: &Pass,
    n: usize,
    wanted: impl Fn(u32) -> bool,
    mut visit: impl FnMut(u32, Document) -> Result<()>,
) -> Result<()> {
    let progress = Progress::stage(corpus.total_bytes(), pass.quiet, pass.stage);
    let mut next = 0usize;
    for doc in corpus.documents() {
        match doc {
            Ok(doc) => {
                progress.document(doc.text.len());
                if next < n && wanted(next as u32) {
                    visit(next as u32, doc)?;
                }
                next += 1;
            }
            Err(e) if pass.skip_invalid && e.is_record() => {}
            Err(e) => return Err(e.into()),
        }
    }
    progress.finish();
    if next != n {
        bail!("the inputs changed while dedup ran: {n} documents read first, {next} now");
    }
    Ok(())
}

/// The pairs that `verification` accepts. Only the documents in some pair
/// are read back; they are sketched, and the pairs compared, on all cores
/// of the current rayon pool.
pub(super) fn verified(
    corpus: &Corpus,
    pass: &Pass,
    n: usize,
    pairs: &[Pair],
    verification: &Verification,
) -> Result<Vec<Pair>> {
    let mut needed = vec![false; n];
    for p in pairs {
        needed[p.a as usize] = true;
        needed[p.b as usize] = true;
    }
    let mut shingled: Vec<Option<Vec<u64>>> = vec![None; n];
    let mut batch: Vec<(u32, String)> = Vec::new();
    let mut batch_bytes = 0;
    let shingle_batch = |batch: &mut Vec<(u32, String)>, shingled: &mut [Option<Vec<u64>>]| {
        let done: Vec<(u32, Vec<u64>)> = batch
            .par_drain(..)
            .map(|(d, text)| (d, verification.sketch(&text)))
            .collect();
        for (d, s) in done {
            shingled[d as usize] = Some(s);
        }
    };
    reread(
        corpus,
        pass,
        n,
        |d| needed[d as usize],
        |d, doc| {
            batch_bytes += doc.text.len();
            batch.push((d, doc.text));
            if batch_bytes >= BATCH_BYTES {
                shingle_batch(&mut batch, &mut shingled);
                batch_bytes = 0;
            }
            Ok(())
        },
    )?;
    shingle_batch(&mut batch, &mut shingled);
    Ok(pairs
        .par_iter()
        .filter(
            |p| match (&shingled[p.a as usize], &shingled[p.b as usize]) {
                (Some(a), Some(b)) => verification.accepts(a, b),
                _ => false,
            },
        )
        .copied()
        .collect())
}

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
/// `want_text`, read back from `corpus`.
pub(super) fn look_up(
    corpus: &Corpus,
    pass: &Pass,
    n: usize,
    want_id: impl Fn(u32) -> bool,
    want_text: &[u32],
) -> Result<(Ids, HashMap<u32, String>)> {
    let mut ids = Ids {
        text: String::new(),
        ends: Vec::with_capacity(n),
    };
    let mut texts = HashMap::new();
    reread(
        corpus,
        pass,
        n,
        |d| want_id(d) || want_text.contains(&d),
        |d, doc| {
            // Documents not asked for end where the one before did.
            let end = ids.text.len() as u64;
            ids.ends.resize(d as usize, end);
            ids.text.push_str(&doc.id);
            ids.ends.push(ids.text.len() as u64);
            if want_text.contains(&d) {
                texts.insert(d, doc.text);
            }
            Ok(())
        },
    )?;
    let end = ids.text.len() as u64;
    ids.ends.resize(n, end);
    Ok((ids, texts))
}
