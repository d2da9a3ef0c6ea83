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

/// The most bytes of text whose sketches one verification pass holds: a
/// word bag is at most 4 bytes per byte of text (8 per word of at least 2
/// bytes with its space, or per Chinese character of 3), about 1.3 for
/// English.
const SKETCH_TEXT_BYTES: u64 = 256 << 20;

/// The pairs that `verification` accepts. Only the documents in some pair
/// are read back, sketched and compared, on all cores of the current rayon
/// pool; when their text (`bytes` of each document) is more than
/// [`SKETCH_TEXT_BYTES`], the pairs are taken in groups whose documents
/// fit, one pass over the inputs per group.
pub(super) fn verified(
    corpus: &Corpus,
    pass: &Pass,
    n: usize,
    pairs: &[Pair],
    verification: &Verification,
    bytes: &dyn Fn(u32) -> u64,
) -> Result<Vec<Pair>> {
    verified_within(
        corpus,
        pass,
        n,
        pairs,
        verification,
        bytes,
        SKETCH_TEXT_BYTES,
    )
}

fn verified_within(
    corpus: &Corpus,
    pass: &Pass,
    n: usize,
    pairs: &[Pair],
    verification: &Verification,
    bytes: &dyn Fn(u32) -> u64,
    budget: u64,
) -> Result<Vec<Pair>> {
    // The group each document was last counted in (u32::MAX: none).
    let mut group_of = vec![u32::MAX; n];
    let mut kept = Vec::new();
    let mut start = 0;
    let mut group = 0u32;
    while start < pairs.len() {
        // The longest run of pairs from `start` whose documents fit.
        let mut end = start;
        let mut text = 0u64;
        while end < pairs.len() {
            let p = pairs[end];
            let added: u64 = [p.a, p.b]
                .iter()
                .filter(|&&d| group_of[d as usize] != group)
                .map(|&d| bytes(d))
                .sum();
            if end > start && text + added > budget {
                break;
            }
            for d in [p.a, p.b] {
                group_of[d as usize] = group;
            }
            text += added;
            end += 1;
        }
        kept.extend(verify_group(
            corpus,
            pass,
            n,
            &pairs[start..end],
            verification,
            &|d| group_of[d as usize] == group,
        )?);
        start = end;
        group += 1;
    }
    Ok(kept)
}

/// One pass: the documents that `needed` names are read and sketched, and
/// `pairs` (all of whose documents it names) compared.
fn verify_group(
    corpus: &Corpus,
    pass: &Pass,
    n: usize,
    pairs: &[Pair],
    verification: &Verification,
    needed: &dyn Fn(u32) -> bool,
) -> Result<Vec<Pair>> {
    let mut sketched: HashMap<u32, Vec<u64>> = HashMap::new();
    let mut batch: Vec<(u32, String)> = Vec::new();
    let mut batch_bytes = 0;
    let sketch_batch = |batch: &mut Vec<(u32, String)>, sketched: &mut HashMap<u32, Vec<u64>>| {
        let done: Vec<(u32, Vec<u64>)> = batch
            .par_drain(..)
            .map(|(d, text)| (d, verification.sketch(&text)))
            .collect();
        sketched.extend(done);
    };
    reread(corpus, pass, n, needed, |d, doc| {
        batch_bytes += doc.text.len();
        batch.push((d, doc.text));
        if batch_bytes >= BATCH_BYTES {
            sketch_batch(&mut batch, &mut sketched);
            batch_bytes = 0;
        }
        Ok(())
    })?;
    sketch_batch(&mut batch, &mut sketched);
    Ok(pairs
        .par_iter()
        .filter(|p| match (sketched.get(&p.a), sketched.get(&p.b)) {
            (Some(a), Some(b)) => verification.accepts(a, b),
            _ => false,
        })
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

#[cfg(test)]
mod tests {
    use super::*;
    use neardup_corpus::ReadOptions;

    #[test]
    fn verification_in_groups_keeps_what_one_group_keeps() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("docs.jsonl");
        let base = "the river rose in the night and the town woke to water in every street";
        let mut lines = String::new();
        for i in 0..24 {
            let text = match i % 3 {
                0 => base.to_string(),
                1 => base.replace("night", &format!("night {i}")),
                _ => format!("note {i} on something else entirely, far from any river"),
            };
            lines.push_str(&serde_json::json!({ "id": i, "text": text }).to_string());
            lines.push('\n');
        }
        std::fs::write(&path, &lines).unwrap();
        let corpus = Corpus::open(&[&path], &ReadOptions::default()).unwrap();
        let pass = Pass {
            skip_invalid: false,
            quiet: true,
            stage: "verifying",
        };
        let pairs: Vec<Pair> = (0..24u32)
            .flat_map(|a| (a + 1..24).map(move |b| Pair { a, b, distance: 0 }))
            .collect();
        let words = Verification::Words(0.1);
        let bytes = |_: u32| 100;
        let all = verified_within(&corpus, &pass, 24, &pairs, &words, &bytes, u64::MAX).unwrap();
        assert!(!all.is_empty() && all.len() < pairs.len());
        for budget in [0, 250, 1000] {
            let grouped =
                verified_within(&corpus, &pass, 24, &pairs, &words, &bytes, budget).unwrap();
            assert_eq!(grouped, all, "budget {budget}");
        }
    }
}
