//! The dedup job over its sources: the same fates from files, texts,
//! `(id, text)` pairs and Arrow arrays; verification reads the source once;
//! a source that changes is caught; nothing is left in the spill directory.

use std::sync::atomic::{AtomicUsize, Ordering};

use arrow_array::StringArray;
use neardup_core::{Fingerprinter, Profile};
use neardup_corpus::{Corpus, ReadOptions};
use neardup_dedup::compat::{is_short_pair, is_within_reach};
use neardup_dedup::{
    DEFAULT_K, DEFAULT_VERIFICATION, Dedup, Error, Fate, Files, Grouping, Keep, Memory, Progress,
    Revisited, Silent, Skipped, Source, SourceDoc, Verification, keep_first,
};
use neardup_index::{Pair, brute_force_pairs};

/// Articles and edited copies of them: near-duplicates, exact copies, and
/// texts far from every other.
fn corpus() -> Vec<String> {
    let base = [
        "the river rose in the night and the town woke to water in every street and every cellar",
        "the council met on tuesday to discuss the budget for the new school and the old library",
        "a recipe for bread needs flour water salt and yeast and a warm room and some patience",
    ];
    let mut texts = Vec::new();
    for i in 0..60 {
        let b = base[i % 3];
        texts.push(match i % 5 {
            0 => b.to_string(),
            1 => b.replace("the ", "a "),
            2 => format!("{b} today"),
            3 => b.to_string(),
            _ => format!("note {i}: {}", "something else entirely ".repeat(i % 7 + 1)),
        });
    }
    texts
}

/// [`corpus`] with each text eight times over: too long for the
/// short-document rule, whose sketches the first pass makes, so that
/// verification reads the source a second time.
fn long_corpus() -> Vec<String> {
    corpus().iter().map(|t| [t.as_str(); 8].join(" ")).collect()
}

#[test]
fn files_texts_pairs_and_arrow_give_the_same_fates() {
    let texts = corpus();
    let job = Dedup::new().unwrap();
    let from_texts = job.run(&Memory::new(&texts[..]), &Silent).unwrap();
    assert!(
        from_texts.unique() < texts.len() / 2,
        "{}",
        from_texts.unique()
    );
    assert!(from_texts.stats().exact_copies > 0);

    let pairs: Vec<(String, &str)> = texts
        .iter()
        .enumerate()
        .map(|(i, t)| (format!("doc-{i}"), t.as_str()))
        .collect();
    let from_pairs = job.run(&Memory::new(&pairs[..]), &Silent).unwrap();
    assert_eq!(from_pairs.fates(), from_texts.fates());

    let array = StringArray::from(texts.clone());
    let from_arrow = job.run(&Memory::new(&array), &Silent).unwrap();
    assert_eq!(from_arrow.fates(), from_texts.fates());

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("docs.jsonl");
    let lines: String = texts
        .iter()
        .map(|t| serde_json::json!({ "text": t }).to_string() + "\n")
        .collect();
    std::fs::write(&path, lines).unwrap();
    let files = Files::new(
        Corpus::open(&[&path], &ReadOptions::default()).unwrap(),
        false,
    );
    let from_files = job.run(&files, &Silent).unwrap();
    assert_eq!(from_files.fates(), from_texts.fates());
    assert_eq!(from_files.records()[7].origin().line, Some(8));
}

#[test]
fn arrow_nulls_are_refused_by_row() {
    let array = StringArray::from(vec![Some("a text"), None]);
    let err = Dedup::new()
        .unwrap()
        .run(&Memory::new(&array), &Silent)
        .unwrap_err();
    assert!(err.to_string().contains("row 1: the text is null"), "{err}");
}

/// A source that counts its passes and what it hands over again, and can
/// lose a document on later passes.
struct Counted<'a> {
    inner: Memory<'a, [String]>,
    revisits: AtomicUsize,
    revisited: AtomicUsize,
    lose_one: bool,
}

impl Source for Counted<'_> {
    fn scan(
        &self,
        progress: &dyn Progress,
        visit: &mut dyn FnMut(&[SourceDoc<'_>]) -> neardup_dedup::Result<()>,
    ) -> neardup_dedup::Result<Skipped> {
        self.inner.scan(progress, visit)
    }

    fn revisit(
        &self,
        progress: &dyn Progress,
        wanted: &(dyn Fn(u32) -> bool + Sync),
        visit: &mut dyn FnMut(&[Revisited<'_>]) -> neardup_dedup::Result<()>,
    ) -> neardup_dedup::Result<usize> {
        self.revisits.fetch_add(1, Ordering::Relaxed);
        let n = self.inner.revisit(progress, wanted, &mut |batch| {
            self.revisited.fetch_add(batch.len(), Ordering::Relaxed);
            visit(batch)
        })?;
        Ok(n - usize::from(self.lose_one))
    }
}

#[test]
fn verification_reads_the_source_once_and_each_document_at_most_once() {
    let texts = long_corpus();
    for grouping in [Grouping::Greedy, Grouping::Components] {
        for verification in [None, Some(Verification::Jaccard(0.5))] {
            let counted = Counted {
                inner: Memory::new(&texts[..]),
                revisits: AtomicUsize::new(0),
                revisited: AtomicUsize::new(0),
                lose_one: false,
            };
            let mut job = Dedup::builder().unwrap();
            job.grouping(grouping).verification(verification);
            let outcome = job.build().unwrap().run(&counted, &Silent).unwrap();
            let passes = counted.revisits.load(Ordering::Relaxed);
            assert_eq!(passes, usize::from(verification.is_some()));
            // Exact copies are sketched once, for their unit.
            let units = texts.len() - outcome.stats().exact_copies;
            assert!(counted.revisited.load(Ordering::Relaxed) <= units);
        }
    }
}

#[test]
fn short_documents_alone_are_verified_without_reading_the_source_again() {
    // Twenty short texts and each again with its last word replaced: the
    // first pass sketched them all, so no second pass is needed.
    let words = |i: usize| (0..12).map(move |w| format!("w{}", i * 12 + w));
    let mut texts: Vec<String> = (0..20)
        .map(|i| words(i).collect::<Vec<_>>().join(" "))
        .collect();
    for i in 0..20 {
        let mut edited: Vec<String> = words(i).collect();
        edited[11] = format!("other{i}");
        texts.push(edited.join(" "));
    }
    let counted = Counted {
        inner: Memory::new(&texts[..]),
        revisits: AtomicUsize::new(0),
        revisited: AtomicUsize::new(0),
        lose_one: false,
    };
    let outcome = Dedup::new().unwrap().run(&counted, &Silent).unwrap();
    assert_eq!(counted.revisits.load(Ordering::Relaxed), 0);
    assert_eq!(outcome.unique(), 20);
    for (d, fate) in outcome.fates().iter().enumerate().skip(20) {
        assert!(
            matches!(fate, Fate::Duplicate { of, .. } if of as usize == d - 20),
            "{d}: {fate:?}"
        );
    }
}

#[test]
fn a_source_that_changes_between_passes_is_caught() {
    let texts = long_corpus();
    let counted = Counted {
        inner: Memory::new(&texts[..]),
        revisits: AtomicUsize::new(0),
        revisited: AtomicUsize::new(0),
        lose_one: true,
    };
    let err = Dedup::new().unwrap().run(&counted, &Silent).unwrap_err();
    assert!(
        matches!(err, Error::Changed { first: 60, now: 59 }),
        "{err}"
    );
}

#[test]
fn the_spill_directory_is_left_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let texts = corpus();
    let mut job = Dedup::builder().unwrap();
    job.spill_to(Some(dir.path().to_path_buf()));
    job.build()
        .unwrap()
        .run(&Memory::new(&texts[..]), &Silent)
        .unwrap();
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    // Sketches go to a file when units are not decided in source order.
    job.keep(Keep::Longest)
        .spill_to(Some(dir.path().join("missing")));
    let err = job
        .build()
        .unwrap()
        .run(&Memory::new(&texts[..]), &Silent)
        .unwrap_err();
    assert!(err.to_string().contains("missing"), "{err}");
}

#[test]
fn keep_rules_choose_the_kept_document() {
    let texts = [
        "the river rose in the night and the town woke to water in every street and cellar",
        "the river rose in the night and the town woke to water in every street and cellar today",
    ];
    let mut job = Dedup::builder().unwrap();
    job.keep(Keep::Longest);
    let outcome = job
        .build()
        .unwrap()
        .run(&Memory::new(&texts[..]), &Silent)
        .unwrap();
    assert_eq!(outcome.fates().get(1), Some(Fate::Kept));
    assert_eq!(
        outcome.fates().get(0).and_then(|f| f.duplicate_of()),
        Some(1)
    );
}

#[test]
fn runs_equal_keep_first_over_every_verified_pair_of_documents() {
    // Both ways verification is done: as the source is read (units in
    // source order, keep first) and through the file of sketches (another
    // keep order); and both groupings' greedy part.
    let texts = corpus();
    let fingerprinter = Fingerprinter::new(Profile::Auto).unwrap();
    let prints: Vec<u64> = texts
        .iter()
        .map(|t| fingerprinter.fingerprint(t).bits() as u64)
        .collect();
    // The default (shingle Jaccard) and the words that differ.
    for verification in [DEFAULT_VERIFICATION, Verification::Words(0.1)] {
        let sketches: Vec<Vec<u64>> = texts.iter().map(|t| verification.sketch(t)).collect();
        for keep in [Keep::First, Keep::Longest] {
            let mut job = Dedup::builder().unwrap();
            job.keep(keep).verification(Some(verification));
            let reach = |p: &Pair| {
                let short = is_short_pair(&texts[p.a as usize], &texts[p.b as usize]);
                is_within_reach(p.distance, DEFAULT_K, true, short)
            };
            let pairs: Vec<Pair> = brute_force_pairs(64, &prints)
                .into_iter()
                .filter(reach)
                .filter(|p| verification.accepts(&sketches[p.a as usize], &sketches[p.b as usize]))
                .collect();
            let mut order: Vec<u32> = (0..texts.len() as u32).collect();
            if keep == Keep::Longest {
                order.sort_by_key(|&d| std::cmp::Reverse(texts[d as usize].len()));
            }
            let expected = keep_first(texts.len(), &order, &pairs);
            let outcome = job
                .build()
                .unwrap()
                .run(&Memory::new(&texts[..]), &Silent)
                .unwrap();
            assert_eq!(outcome.fates().to_vec(), expected, "{keep} {verification}");
        }
    }
}

/// A source whose later passes hand over one document more than the first
/// (the inputs grew), or hand the documents over backwards.
struct Unsteady {
    texts: Vec<String>,
    backwards: bool,
}

impl Source for Unsteady {
    fn scan(
        &self,
        progress: &dyn Progress,
        visit: &mut dyn FnMut(&[SourceDoc<'_>]) -> neardup_dedup::Result<()>,
    ) -> neardup_dedup::Result<Skipped> {
        let first = &self.texts[..self.texts.len() - usize::from(!self.backwards)];
        Memory::new(first).scan(progress, visit)
    }

    fn revisit(
        &self,
        _: &dyn Progress,
        wanted: &(dyn Fn(u32) -> bool + Sync),
        visit: &mut dyn FnMut(&[Revisited<'_>]) -> neardup_dedup::Result<()>,
    ) -> neardup_dedup::Result<usize> {
        let mut numbers: Vec<u32> = (0..self.texts.len() as u32)
            .filter(|&d| wanted(d))
            .collect();
        if self.backwards {
            numbers.reverse();
        }
        for d in numbers {
            let text = &self.texts[d as usize];
            visit(&[Revisited {
                number: d,
                id: "",
                text,
            }])?;
        }
        Ok(self.texts.len())
    }
}

#[test]
fn a_source_that_grows_or_turns_around_is_refused() {
    let texts = long_corpus();
    let grown = Unsteady {
        texts: texts.clone(),
        backwards: false,
    };
    let err = Dedup::new().unwrap().run(&grown, &Silent).unwrap_err();
    assert!(
        matches!(err, Error::Changed { first: 59, now: 60 }),
        "{err}"
    );
    // Backwards within a block of units changes nothing; across blocks, a
    // unit would come after its block was decided. (Long documents: the
    // sketches of short ones are made in the first pass.)
    let many: Vec<String> = (0..5000)
        .map(|i| {
            format!(
                "document {i} {}",
                [texts[i % texts.len()].as_str(); 8].join(" ")
            )
        })
        .collect();
    let turned = Unsteady {
        texts: many,
        backwards: true,
    };
    let err = Dedup::new().unwrap().run(&turned, &Silent).unwrap_err();
    assert!(err.to_string().contains("order of its first pass"), "{err}");
}

#[test]
fn a_k_too_wide_for_the_index_of_kept_documents_is_refused_before_reading() {
    let mut job = Dedup::builder().unwrap();
    job.verification(None).k(29);
    assert!(job.build().is_ok());
    let err = job.k(40).build().unwrap_err();
    assert!(err.to_string().contains("give a smaller k"), "{err}");
}

/// Texts of random words over a small vocabulary, each followed by copies
/// with a few words or many replaced: candidates that verification passes
/// and candidates it refuses, over more than one block of units.
fn variants(originals: usize, per: usize) -> Vec<String> {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let vocabulary: Vec<String> = (0..400).map(|i| format!("w{i}")).collect();
    let mut texts = Vec::new();
    for _ in 0..originals {
        let words: Vec<usize> = (0..80)
            .map(|_| next() as usize % vocabulary.len())
            .collect();
        for v in 0..per {
            let mut edited = words.clone();
            // Copy v has v * 2 words replaced: 0 to 18 of 80.
            for _ in 0..v * 2 {
                let at = next() as usize % edited.len();
                edited[at] = next() as usize % vocabulary.len();
            }
            let text: Vec<&str> = edited.iter().map(|&w| vocabulary[w].as_str()).collect();
            texts.push(text.join(" "));
        }
    }
    texts
}

#[test]
fn a_memory_budget_of_nothing_spills_kept_sketches_and_changes_no_fate() {
    let texts = variants(300, 10);
    let dir = tempfile::tempdir().unwrap();
    let mut job = Dedup::builder().unwrap();
    job.spill_to(Some(dir.path().to_path_buf()));
    let held = job
        .build()
        .unwrap()
        .run(&Memory::new(&texts[..]), &Silent)
        .unwrap();
    let spilled = job
        .memory(Some(1))
        .build()
        .unwrap()
        .run(&Memory::new(&texts[..]), &Silent)
        .unwrap();
    assert_eq!(spilled.fates(), held.fates());
    let dropped = texts.len() - held.unique();
    assert!(dropped > 300 && held.unique() > 600, "{dropped} dropped");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    // With no budget, the kept documents' sketches go to a file.
    job.spill_to(Some(dir.path().join("missing")));
    let err = job
        .build()
        .unwrap()
        .run(&Memory::new(&texts[..]), &Silent)
        .unwrap_err();
    assert!(err.to_string().contains("missing"), "{err}");
}
