//! Fingerprinting throughput of each profile on real text.
//!
//! ```text
//! cargo bench -p neardup-core --bench fingerprint
//! ```
//!
//! The corpora come from `scripts/fetch-corpora.sh` (`data/corpora/*.jsonl`
//! at the workspace root); without them this prints how to fetch them and
//! measures nothing. Each group fingerprints a fixed sample of one corpus per
//! iteration, on one thread unless the benchmark says otherwise, and reports
//! bytes of UTF-8 text per second:
//!
//! | group | texts | per iteration |
//! |---|---|---|
//! | `en` | BBC News | ~2 MB; also `fingerprint_batch` on all cores |
//! | `zh` | People's Daily | ~1 MB |
//! | `python-simhash` | BBC News | ~0.5 MB (MD5 per character 4-gram is slow) |
//! | `auto` | BBC and People's Daily, alternating | ~0.5 MB of each |
//!
//! A sample takes every n-th article, so it spans the whole corpus (BBC is
//! ordered by section), and is the same on every run. Comparisons with other
//! tools live in `bench/fingerprint.sh`.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{BenchmarkGroup, Criterion, SamplingMode, Throughput, measurement::WallTime};
use neardup_core::{Fingerprinter, Profile};

const MB: usize = 1_000_000;

/// The corpora, or `None` when a file is missing.
struct Corpora {
    bbc: Vec<String>,
    peoples_daily: Vec<String>,
}

impl Corpora {
    fn load() -> Option<Corpora> {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/corpora");
        Some(Corpora {
            bbc: read_texts(&dir.join("bbc.jsonl"))?,
            peoples_daily: read_texts(&dir.join("peoples_daily.jsonl"))?,
        })
    }
}

/// The `text` field of every line of a JSON-lines file; `None`, with a note,
/// when the file is missing.
fn read_texts(path: &Path) -> Option<Vec<String>> {
    let data = match std::fs::read_to_string(path) {
        Ok(data) => data,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            eprintln!(
                "{} is missing: run scripts/fetch-corpora.sh to benchmark fingerprinting",
                path.display()
            );
            return None;
        }
        Err(e) => panic!("cannot read {}: {e}", path.display()),
    };
    let texts = data
        .lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(i, line)| {
            let value: serde_json::Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("{}:{}: {e}", path.display(), i + 1));
            value["text"]
                .as_str()
                .unwrap_or_else(|| panic!("{}:{}: no \"text\"", path.display(), i + 1))
                .to_string()
        })
        .collect();
    Some(texts)
}

/// Every n-th text, with n chosen so that the sample holds about `target`
/// bytes, stopping once it does.
fn sample(texts: &[String], target: usize) -> Vec<&str> {
    let total: usize = texts.iter().map(String::len).sum();
    let step = (total / target).max(1);
    let mut bytes = 0;
    let mut out = Vec::new();
    for t in texts.iter().step_by(step) {
        if bytes >= target {
            break;
        }
        bytes += t.len();
        out.push(t.as_str());
    }
    out
}

/// Alternates the texts of `a` and `b`, then appends what is left of the
/// longer.
fn interleave<'a>(a: &[&'a str], b: &[&'a str]) -> Vec<&'a str> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    for i in 0..a.len().max(b.len()) {
        out.extend(a.get(i));
        out.extend(b.get(i));
    }
    out
}

fn bytes(texts: &[&str]) -> u64 {
    texts.iter().map(|t| t.len() as u64).sum()
}

/// A group of one profile with its throughput set. An iteration takes tens
/// to hundreds of milliseconds, so every sample runs the same number of
/// iterations.
fn group<'c>(
    c: &'c mut Criterion,
    profile: Profile,
    texts: &[&str],
) -> BenchmarkGroup<'c, WallTime> {
    let mut g = c.benchmark_group(profile.name());
    g.sampling_mode(SamplingMode::Flat)
        .throughput(Throughput::Bytes(bytes(texts)));
    g
}

/// Fingerprints every text in a plain loop on the calling thread.
fn bench_loop(g: &mut BenchmarkGroup<'_, WallTime>, id: &str, fp: &Fingerprinter, texts: &[&str]) {
    g.bench_function(id, |b| {
        b.iter(|| {
            for t in texts {
                black_box(fp.fingerprint(black_box(t)));
            }
        })
    });
}

fn benches(c: &mut Criterion, corpora: &Corpora) {
    let bbc_2mb = sample(&corpora.bbc, 2 * MB);
    let en = Fingerprinter::new(Profile::En).unwrap();
    let mut g = group(c, Profile::En, &bbc_2mb);
    bench_loop(&mut g, "bbc", &en, &bbc_2mb);
    g.bench_function("bbc/batch-all-cores", |b| {
        b.iter(|| black_box(en.fingerprint_batch(black_box(&bbc_2mb))))
    });
    g.finish();

    let pd_1mb = sample(&corpora.peoples_daily, MB);
    let zh = Fingerprinter::new(Profile::Zh).unwrap();
    let mut g = group(c, Profile::Zh, &pd_1mb);
    bench_loop(&mut g, "peoples-daily", &zh, &pd_1mb);
    g.finish();

    let bbc_half = sample(&corpora.bbc, MB / 2);
    let py = Fingerprinter::new(Profile::PythonSimhash).unwrap();
    let mut g = group(c, Profile::PythonSimhash, &bbc_half);
    bench_loop(&mut g, "bbc", &py, &bbc_half);
    g.finish();

    let mix = interleave(&bbc_half, &sample(&corpora.peoples_daily, MB / 2));
    let auto = Fingerprinter::new(Profile::Auto).unwrap();
    let mut g = group(c, Profile::Auto, &mix);
    bench_loop(&mut g, "bbc+peoples-daily", &auto, &mix);
    g.finish();
}

fn main() {
    let Some(corpora) = Corpora::load() else {
        return;
    };
    // Defaults that the command line (e.g. --measurement-time) can change.
    let mut c = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(2))
        .measurement_time(Duration::from_secs(5))
        .configure_from_args();
    benches(&mut c, &corpora);
    c.final_summary();
}
