//! The passes that read the inputs again, for the few documents a later
//! step needs: the texts of candidate pairs (to verify them), and the ids and
//! texts of the documents that the outputs name or show. Only fingerprints
//! stay in memory between passes; anything else is read back when needed.

use std::collections::HashMap;
use std::io::{BufWriter, Write};
use std::path::Path;

use anyhow::{Context, Result, bail};
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
/// are read back; they are sketched on all cores of the current rayon pool,
/// and the sketches written to an unnamed temporary file in `spill` (gone
/// with the process), which is then mapped: the sketches of any number of
/// documents take page cache, which the system can evict, not memory of
/// the process. One pass over the inputs, whatever their size.
pub(super) fn verified(
    corpus: &Corpus,
    pass: &Pass,
    n: usize,
    pairs: &[Pair],
    verification: &Verification,
    spill: &Path,
) -> Result<Vec<Pair>> {
    if pairs.is_empty() {
        return Ok(Vec::new());
    }
    let mut needed = vec![false; n];
    for p in pairs {
        needed[p.a as usize] = true;
        needed[p.b as usize] = true;
    }
    let file = tempfile::tempfile_in(spill)
        .with_context(|| format!("cannot create a temporary file in {}", spill.display()))?;
    let mut out = BufWriter::new(&file);
    // Where each document's sketch is, in u64s from the file's start.
    let mut place: HashMap<u32, (usize, usize)> = HashMap::new();
    let mut written = 0usize;
    let mut batch: Vec<(u32, String)> = Vec::new();
    let mut batch_bytes = 0;
    let mut flush = |batch: &mut Vec<(u32, String)>| -> Result<()> {
        let done: Vec<(u32, Vec<u64>)> = batch
            .par_drain(..)
            .map(|(d, text)| (d, verification.sketch(&text)))
            .collect();
        for (d, sketch) in done {
            out.write_all(bytemuck::cast_slice(&sketch))
                .context("cannot write the verification sketches")?;
            place.insert(d, (written, sketch.len()));
            written += sketch.len();
        }
        Ok(())
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
                flush(&mut batch)?;
                batch_bytes = 0;
            }
            Ok(())
        },
    )?;
    flush(&mut batch)?;
    out.flush()
        .context("cannot write the verification sketches")?;
    drop(out);
    if written == 0 {
        return Ok(Vec::new());
    }
    // SAFETY: the file is this process's own, unnamed, and not written to
    // again while mapped.
    let map =
        unsafe { memmap2::Mmap::map(&file) }.context("cannot map the verification sketches")?;
    let all: &[u64] = bytemuck::try_cast_slice(&map[..])
        .map_err(|e| anyhow::anyhow!("the verification sketches are misaligned: {e}"))?;
    let sketch = |d: u32| place.get(&d).and_then(|&(at, len)| all.get(at..at + len));
    Ok(pairs
        .par_iter()
        .filter(|p| match (sketch(p.a), sketch(p.b)) {
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
    fn verification_through_the_spill_file_equals_comparing_texts() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("docs.jsonl");
        let base = "the river rose in the night and the town woke to water in every street";
        let mut texts = Vec::new();
        let mut lines = String::new();
        for i in 0..24 {
            let text = match i % 3 {
                0 => base.to_string(),
                1 => base.replace("night", &format!("night {i}")),
                _ => format!("note {i} on something else entirely, far from any river"),
            };
            lines.push_str(&serde_json::json!({ "id": i, "text": text }).to_string());
            lines.push('\n');
            texts.push(text);
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
        for verification in [Verification::Words(0.1), Verification::Jaccard(0.5)] {
            let expected: Vec<Pair> = pairs
                .iter()
                .copied()
                .filter(|p| {
                    let (a, b) = (&texts[p.a as usize], &texts[p.b as usize]);
                    verification.accepts(&verification.sketch(a), &verification.sketch(b))
                })
                .collect();
            assert!(!expected.is_empty() && expected.len() < pairs.len());
            let got = verified(&corpus, &pass, 24, &pairs, &verification, dir.path()).unwrap();
            assert_eq!(got, expected, "{verification}");
        }
        // The spill file is unnamed: nothing is left behind.
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(left.len(), 1);
    }
}
