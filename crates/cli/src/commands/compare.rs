//! `neardup compare A B`: distance, estimated similarity, the verification
//! of `neardup dedup`, verdict, and what made the difference.

use std::collections::HashMap;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use neardup_core::{Fingerprinter, WeightedFeature};
use neardup_corpus::{Corpus, Format, ReadOptions};
use neardup_dedup::is_short_pair;
use serde_json::json;

use crate::args::CompareArgs;
use crate::config;

/// Features shown by --explain.
const SHOWN: usize = 10;

pub fn run(args: &CompareArgs) -> Result<ExitCode> {
    let fingerprinter = config::fingerprinter(&args.settings)?;
    let (a, b) = if args.text {
        (args.inputs[0].clone(), args.inputs[1].clone())
    } else {
        if args.inputs[0] == "-" && args.inputs[1] == "-" {
            bail!(
                "stdin can be read once: give one of the two texts as a file (or both with --text)"
            );
        }
        (read(&args.inputs[0])?, read(&args.inputs[1])?)
    };
    let (fa, fb) = (fingerprinter.fingerprint(&a), fingerprinter.fingerprint(&b));
    let bits = fa.width().bits();
    if args.k >= bits {
        bail!(
            "-k {}: the fingerprints have {bits} bits, and k is below that",
            args.k
        );
    }
    let distance = fa.distance(&fb)?;
    let similarity = fa.similarity(&fb)?;
    // The rule of `neardup dedup`: within k (any distance for a short text
    // and a near-short one, with verification), and accepted by the
    // verification.
    let verify = config::verification(&args.nearness)?;
    let short = is_short_pair(&a, &b) && !args.nearness.no_short_rule;
    let k = args.k;
    let measure = verify.map(|v| {
        let value = v.measure(&v.sketch(&a), &v.sketch(&b));
        (v, value, v.holds(value))
    });
    let within = neardup_dedup::is_within_reach(distance, k, verify.is_some(), short);
    let near = within && measure.is_none_or(|(_, _, passes)| passes);
    let pushes = if args.explain {
        pushes(&fingerprinter, &a, &b, fa.bits() ^ fb.bits(), fb.bits())
    } else {
        Vec::new()
    };
    if args.json {
        let value = json!({
            "a": fa.to_hex(), "b": fb.to_hex(), "distance": distance, "bits": bits,
            "similarity": similarity, "k": k, "short": short, "near_duplicate": near,
            "verify": measure.map(|(v, value, passes)| json!({
                "rule": v.to_string(), "value": value, "passes": passes,
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
        if let Some((v, value, passes)) = measure {
            println!(
                "verified:   {value:.3} {}: {}",
                v.describe(),
                if passes { "passes" } else { "fails" }
            );
        }
        let verdict = if near { "near-duplicates" } else { "different" };
        let short_note = if short && verify.is_some() {
            ", any distance for a short text"
        } else {
            ""
        };
        // Say why when the verification passed and the distance did not.
        let reason = if within {
            String::new()
        } else {
            format!("distance {distance} > ")
        };
        println!("verdict:    {verdict} ({reason}k = {k}{short_note})");
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
