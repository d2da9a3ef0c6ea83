//! `neardup compare A B`: distance, estimated similarity, the verification
//! of `neardup dedup`, verdict, and what made the difference.

use std::collections::HashMap;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use neardup_core::{Fingerprinter, WeightedFeature};
use neardup_corpus::{Corpus, Format, ReadOptions};
use neardup_dedup::{FoundBy, Verdict};
use serde_json::json;

use crate::args::CompareArgs;
use crate::config;

/// Features shown by --explain.
const SHOWN: usize = 10;

pub fn run(args: &CompareArgs) -> Result<ExitCode> {
    let fingerprinter = config::fingerprinter(&args.settings)?;
    if args.k >= fingerprinter.width().bits() {
        bail!(
            "-k {}: the fingerprints have {} bits, and k is below that",
            args.k,
            fingerprinter.width().bits()
        );
    }
    let (a, b) = if args.text {
        (args.a.clone(), args.b.clone())
    } else {
        if args.a == "-" && args.b == "-" {
            bail!(
                "stdin can be read once: give one of the two texts as a file (or both with --text)"
            );
        }
        (read(&args.a)?, read(&args.b)?)
    };
    let rule = config::rule(fingerprinter.clone(), args.k, &args.nearness)?;
    let (pa, pb) = (rule.prepare(&a), rule.prepare(&b));
    let (fa, fb) = (pa.fingerprint(), pb.fingerprint());
    let bits = fa.width().bits();
    let similarity = fa.similarity(&fb)?;
    // The verdict of `neardup dedup`, from the one rule every front asks.
    let verdict = rule.judge_prepared(&pa, &pb);
    let (distance, near, k) = (verdict.distance, verdict.near, args.k);
    let verify = rule.verifier();
    let pushes = if args.explain {
        pushes(&fingerprinter, &a, &b, fa.bits() ^ fb.bits(), fb.bits())
    } else {
        Vec::new()
    };
    if args.json {
        let value = json!({
            "a": fa.to_hex(), "b": fb.to_hex(), "distance": distance, "bits": bits,
            "similarity": similarity, "k": k,
            "short": pa.is_short() || pb.is_short(),
            "near_duplicate": near,
            "found_by": verdict.found_by.map(FoundBy::name),
            "verify": verify.zip(verdict.similarity).map(|(v, value)| json!({
                "rule": v.to_string(), "value": value, "passes": verdict.passes,
            })),
            "features": pushes.iter().map(|p| json!({
                "feature": p.text, "weight_a": p.weight_a, "weight_b": p.weight_b, "bits": p.bits,
            })).collect::<Vec<_>>(),
        });
        println!("{value}");
    } else {
        println!("a:          {fa}");
        println!("b:          {fb}");
        println!("distance:   {distance} of {bits} bits");
        println!("similarity: {similarity:.3} (estimated cosine)");
        if let Some((v, value)) = verify.zip(verdict.similarity) {
            println!(
                "verified:   {value:.3} {}: {}",
                v.describe(),
                if verdict.passes { "passes" } else { "fails" }
            );
        }
        println!("verdict:    {}", describe(&verdict, k));
        if args.explain {
            if pushes.is_empty() {
                println!("no differing bits to explain");
            } else {
                println!("features that pushed the differing bits (weight in a → in b):");
            }
            for p in &pushes {
                println!(
                    "  {:<24} {:>8.3} → {:<8.3} bits {:?}",
                    p.text, p.weight_a, p.weight_b, p.bits
                );
            }
        }
    }
    Ok(if near {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The verdict line: near or not, and what decided it, in the words of
/// `neardup dedup`'s outputs.
fn describe(verdict: &Verdict, k: u32) -> String {
    let found = match verdict.found_by {
        Some(FoundBy::ExactCopy) => "the same text".to_string(),
        Some(FoundBy::Fingerprint) => format!("found within k = {k} bits"),
        Some(FoundBy::ShortDocuments) => {
            "found by the short-document rule, at any distance".to_string()
        }
        None => format!(
            "distance {} > k = {k}, and not a short pair: dedup does not compare them",
            verdict.distance
        ),
    };
    match (verdict.near, verdict.found_by) {
        (true, _) => format!("near-duplicates ({found})"),
        (false, Some(_)) => format!("different ({found}; verification fails)"),
        (false, None) if verdict.similarity.is_some() && verdict.passes => format!(
            "different: verification passes, but {found}; dedup keeps both (a larger -k finds them)"
        ),
        (false, None) => format!("different ({found})"),
    }
}

/// One file (or stdin) as one text document, with the checks of every input.
fn read(path: &str) -> Result<String> {
    if Path::new(path).is_dir() {
        bail!("{path} is a directory: compare takes two files (or two texts with --text)");
    }
    if let kind @ (Format::JsonLines | Format::Parquet) = Format::Auto.of(Path::new(path)) {
        bail!(
            "{path} holds {}: compare takes two text files; to compare two of its records, \
             give their texts with --text",
            if kind == Format::Parquet {
                "Parquet rows"
            } else {
                "JSON lines"
            }
        );
    }
    let mut options = ReadOptions::default();
    options.format(Format::Text);
    let corpus = Corpus::open(&[path], &options)?;
    match corpus.documents().next() {
        Some(doc) => Ok(doc.with_context(|| format!("cannot compare {path}"))?.text),
        None => bail!("{path}: no document to compare"),
    }
}

struct Push {
    text: String,
    weight_a: f64,
    weight_b: f64,
    bits: Vec<u32>,
}

/// The features whose change of weight from `a` to `b` voted for `b`'s value
/// on the differing bits, most influential first.
fn pushes(f: &Fingerprinter, a: &str, b: &str, differing: u128, b_bits: u128) -> Vec<Push> {
    let mut weights: HashMap<String, (u128, f64, f64)> = HashMap::new();
    for (side, features) in [(0, f.weighted_features(a)), (1, f.weighted_features(b))] {
        for WeightedFeature { text, hash, weight } in features {
            let entry = weights.entry(text).or_insert((hash, 0.0, 0.0));
            if side == 0 {
                entry.1 += weight;
            } else {
                entry.2 += weight;
            }
        }
    }
    let mut pushes: Vec<(f64, Push)> = weights
        .into_iter()
        .filter(|(_, (_, wa, wb))| wa != wb)
        .filter_map(|(text, (hash, wa, wb))| {
            let delta = wb - wa;
            let bits: Vec<u32> = (0..128)
                .filter(|&j| (differing >> j) & 1 == 1)
                .filter(|&j| {
                    let toward_one = (b_bits >> j) & 1 == 1;
                    let votes_one = ((hash >> j) & 1 == 1) == (delta > 0.0);
                    toward_one == votes_one
                })
                .collect();
            (!bits.is_empty()).then(|| {
                let score = delta.abs() * bits.len() as f64;
                (
                    score,
                    Push {
                        text,
                        weight_a: wa,
                        weight_b: wb,
                        bits,
                    },
                )
            })
        })
        .collect();
    pushes.sort_by(|x, y| y.0.total_cmp(&x.0).then_with(|| x.1.text.cmp(&y.1.text)));
    pushes.into_iter().take(SHOWN).map(|(_, p)| p).collect()
}
