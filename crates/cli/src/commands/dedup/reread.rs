//! The passes that read the inputs again, for the few documents a later
//! step needs: the texts of candidate pairs (to verify them), and the ids and
//! texts of the documents that the outputs name or show. Only fingerprints
//! stay in memory between passes; anything else is read back when needed.

use std::collections::HashMap;

use anyhow::{Result, bail};
use neardup_corpus::{Corpus, Document};
use neardup_dedup::{jaccard, shingles};
use neardup_index::Pair;
use rayon::prelude::*;

/// Texts gathered before they are shingled on all cores together.
const BATCH_BYTES: usize = 16 << 20;

/// Reads `corpus` again and hands each document `wanted` asks for, with its
/// number, to `visit`. Errors skipped on the first pass are skipped again;
/// a corpus that yields another number of documents than `n` has changed.
pub(super) fn reread(
    corpus: &Corpus,
    skip_invalid: bool,
    n: usize,
    wanted: impl Fn(u32) -> bool,
    mut visit: impl FnMut(u32, Document) -> Result<()>,
) -> Result<()> {
    let mut next = 0usize;
    for doc in corpus.documents() {
        match doc {
            Ok(doc) => {
                if next < n && wanted(next as u32) {
                    visit(next as u32, doc)?;
                }
                next += 1;
            }
            Err(e) if skip_invalid && e.is_record() => {}
            Err(e) => return Err(e.into()),
        }
    }
    if next != n {
        bail!("the inputs changed while dedup ran: {n} documents read first, {next} now");
    }
    Ok(())
}

/// The pairs whose documents' word 3-shingles have a Jaccard similarity of
/// at least `threshold`. Only the documents in some pair are read back;
/// they are shingled, and the pairs compared, on all cores of the current
/// rayon pool.
pub(super) fn verified(
    corpus: &Corpus,
    skip_invalid: bool,
    n: usize,
    pairs: &[Pair],
    threshold: f64,
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
            .map(|(d, text)| (d, shingles(&text, 3)))
            .collect();
        for (d, s) in done {
            shingled[d as usize] = Some(s);
        }
    };
    reread(
        corpus,
        skip_invalid,
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
                (Some(a), Some(b)) => jaccard(a, b) >= threshold,
                _ => false,
            },
        )
        .copied()
        .collect())
}

/// The ids of the documents `want_id` asks for, and the texts of those in
/// `want_text`, read back from `corpus`.
pub(super) struct LookedUp {
    pub ids: HashMap<u32, String>,
    pub texts: HashMap<u32, String>,
}

pub(super) fn look_up(
    corpus: &Corpus,
    skip_invalid: bool,
    n: usize,
    want_id: impl Fn(u32) -> bool,
    want_text: &[u32],
) -> Result<LookedUp> {
    let mut found = LookedUp {
        ids: HashMap::new(),
        texts: HashMap::new(),
    };
    reread(
        corpus,
        skip_invalid,
        n,
        |d| want_id(d) || want_text.contains(&d),
        |d, doc| {
            if want_text.contains(&d) {
                found.texts.insert(d, doc.text);
            }
            found.ids.insert(d, doc.id);
            Ok(())
        },
    )?;
    Ok(found)
}
