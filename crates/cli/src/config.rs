//! From what was typed to configured library objects. The only place that
//! knows both the flags and the libraries.

use anyhow::{Context, Result};
use neardup_core::{
    FeatureHash, FeatureKind, Fingerprinter, IdfTable, Profile, StopWords, Weighting, Width,
};
use neardup_corpus::{Format, ReadOptions};
use neardup_dedup::{Dedup, DedupBuilder, Grouping, Keep, Rule, Verification};

use crate::args::{
    ClusterArg, DedupArgs, FingerprintSettings, FormatArg, InputArgs, KeepArg, NearnessArgs,
};

/// The fingerprinter the settings describe. Reads the stop-word and IDF
/// files they name.
pub fn fingerprinter(s: &FingerprintSettings) -> Result<Fingerprinter> {
    let profile: Profile = s.profile.parse()?;
    let mut b = Fingerprinter::builder(profile);
    if let Some(w) = &s.width {
        b.width(Width::from_bits(w.parse().context("--width")?)?);
    }
    if let Some(h) = &s.hash {
        b.hash(h.parse::<FeatureHash>()?);
    }
    if let Some(f) = &s.features {
        b.features(f.parse::<FeatureKind>().context("--features")?);
    }
    if let Some(w) = &s.weighting {
        b.weighting(w.parse::<Weighting>()?);
    }
    if let Some(k) = s.top_k {
        b.top_k(Some(k));
    }
    match s.stop_words.as_deref() {
        None => {}
        Some("none") => {
            b.stop_words(None);
        }
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read the stop-word list {path}"))?;
            let list = StopWords::from_lines(&text).with_context(|| format!("in {path}"))?;
            b.stop_words(Some(list));
        }
    }
    if let Some(path) = &s.idf {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read the IDF table {}", path.display()))?;
        let table = IdfTable::from_text(&text).with_context(|| format!("in {}", path.display()))?;
        b.idf(table);
        if s.weighting.is_none() {
            b.weighting(Weighting::TfIdf);
        }
    }
    Ok(b.build()?)
}

/// The format `--format` names.
pub fn format(format: FormatArg) -> Format {
    match format {
        FormatArg::Auto => Format::Auto,
        FormatArg::Jsonl => Format::JsonLines,
        FormatArg::Text => Format::Text,
        FormatArg::Parquet => Format::Parquet,
    }
}

/// How documents are read.
pub fn read_options(input: &InputArgs) -> ReadOptions {
    let mut options = ReadOptions::default();
    options
        .format(format(input.format))
        .text_field(&input.text_field)
        .id_field(&input.id_field)
        .lines(input.lines)
        .max_bytes(input.max_bytes);
    options
}

/// The verification of `--threshold T` (`jaccard:T`) or `--verify`
/// (`jaccard:T`, `words:D` or `none`).
pub fn verification(args: &NearnessArgs) -> Result<Option<Verification>> {
    verification_of(args.threshold, &args.verify)
}

/// The verification `--threshold` (when given) or `--verify` names.
pub fn verification_of(threshold: Option<f64>, verify: &str) -> Result<Option<Verification>> {
    if let Some(t) = threshold {
        return Verification::threshold(t)
            .map(Some)
            .map_err(|e| anyhow::anyhow!("--threshold {t}: {e}"));
    }
    Verification::from_setting(verify).map_err(|e| anyhow::anyhow!("--verify {e}"))
}

/// The default k of `dedup`, `eval` and `compare`: the dedup job's.
pub const DEFAULT_K: u32 = neardup_dedup::DEFAULT_K;

/// The default of `--verify`: the dedup job's verification.
pub fn default_verify() -> String {
    neardup_dedup::DEFAULT_VERIFICATION.to_string()
}

/// The rule that decides what is near: the fingerprinter, `-k`, and the
/// verification and short-document rule of `nearness`. Every command that
/// gives a verdict builds it here.
pub fn rule(fingerprinter: Fingerprinter, k: u32, nearness: &NearnessArgs) -> Result<Rule> {
    let mut rule = Rule::with_fingerprinter(fingerprinter);
    rule.k(k)
        .short_rule(!nearness.no_short_rule)
        .short_words(nearness.short_words)
        .verification(verification(nearness)?);
    Ok(rule)
}

/// The dedup job the arguments describe (its fingerprinter reads the
/// stop-word and IDF files they name).
pub fn dedup_job(args: &DedupArgs) -> Result<Dedup> {
    let mut job = DedupBuilder::with_rule(rule(
        fingerprinter(&args.settings)?,
        args.k,
        &args.nearness,
    )?);
    job.keep(match args.keep {
        KeepArg::First => Keep::First,
        KeepArg::Longest => Keep::Longest,
        KeepArg::Shortest => Keep::Shortest,
        KeepArg::Max(_) => Keep::Max,
        KeepArg::Min(_) => Keep::Min,
    })
    .grouping(match args.cluster {
        ClusterArg::Greedy => Grouping::Greedy,
        ClusterArg::Components => Grouping::Components,
    })
    .against(neardup_output::against_index(
        args.against.as_deref(),
        args.save_index.as_deref(),
    ))
    .memory(args.memory)
    // Temporary files beside the outputs: where the user made room.
    .spill_to(Some(args.out.clone()));
    job.build().with_context(|| format!("-k {}", args.k))
}
