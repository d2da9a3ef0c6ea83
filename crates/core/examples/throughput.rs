//! Fingerprinting throughput on a JSON-lines corpus, as one JSON line.
//!
//! ```text
//! cargo run --release -p neardup-core --example throughput -- \
//!     --profile en --threads 1 --runs 7 data/corpora/bbc.jsonl
//! ```
//!
//! Reads the `text` field of every line of FILE, fingerprints all texts once
//! to warm up, then times `--runs` passes. A pass goes over the texts as
//! many times as it takes to last at least a quarter of a second (judged by
//! the warm-up), so that threads get enough work to share evenly and
//! start-up costs vanish. With `--threads 1` a pass is a plain loop on the
//! calling thread; with `--threads N` it is `Fingerprinter::fingerprint_batch`
//! inside a rayon pool of N threads.
//! Construction of the fingerprinter (e.g. loading jieba's dictionary) is not
//! timed. It prints
//!
//! ```text
//! {"tool":"neardup","profile":"en","threads":1,"corpus":"bbc.jsonl","bytes":..,"docs":..,"repeat":..,"runs":7,"median_s":..,"mb_per_s":..}
//! ```
//!
//! where `bytes` counts the UTF-8 bytes of the texts, `repeat` is how many
//! times a pass goes over them, `median_s` is the median time of one pass and
//! `mb_per_s` is `repeat * bytes / 1e6 / median_s`.
//! `bench/fingerprint.sh` runs it against the Python peers.

use std::error::Error;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use neardup_core::{Fingerprinter, Profile};

const USAGE: &str = "\
usage: throughput [--profile P] [--threads N] [--runs R] [--repeat K] [--jieba-only] FILE.jsonl

  --profile P   auto, en, zh or python-simhash (default en)
  --jieba-only  time jieba-rs's cut alone (no HMM), which the zh
                profile's own Han segmentation reproduces; one thread
  --threads N   1: a plain loop; N > 1: fingerprint_batch in a rayon pool
                of N threads (default 1)
  --runs R      timed passes, after one warm-up (default 7)
  --repeat K    times a pass goes over the texts (default: enough for a
                pass to last 0.25 s; give it for a fixed amount of work, as
                when counting instructions)";

/// What was typed, validated; no I/O yet.
struct Args {
    profile: Profile,
    threads: usize,
    runs: usize,
    repeat: Option<usize>,
    jieba_only: bool,
    file: PathBuf,
}

fn parse_args(mut argv: impl Iterator<Item = String>) -> Result<Args, String> {
    let mut profile = Profile::En;
    let mut threads = 1;
    let mut runs = 7;
    let mut repeat = None;
    let mut file = None;
    let mut jieba_only = false;
    while let Some(arg) = argv.next() {
        let mut value = |flag: &str| argv.next().ok_or_else(|| format!("{flag} needs a value"));
        match arg.as_str() {
            "-h" | "--help" => return Err(String::new()),
            "--profile" => {
                profile = value("--profile")?
                    .parse()
                    .map_err(|e| format!("--profile: {e}"))?;
            }
            "--threads" => threads = positive(&value("--threads")?, "--threads")?,
            "--runs" => runs = positive(&value("--runs")?, "--runs")?,
            "--repeat" => repeat = Some(positive(&value("--repeat")?, "--repeat")?),
            "--jieba-only" => jieba_only = true,
            s if s.starts_with('-') => return Err(format!("unknown flag {s}")),
            s if file.is_none() => file = Some(PathBuf::from(s)),
            s => return Err(format!("unexpected argument {s:?}: give one FILE")),
        }
    }
    let file = file.ok_or("missing FILE.jsonl")?;
    Ok(Args {
        profile,
        threads,
        runs,
        repeat,
        jieba_only,
        file,
    })
}

fn positive(s: &str, flag: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!("{flag}: expected a positive integer, got {s:?}")),
    }
}

/// The `text` field of every non-blank line of `path`.
fn read_texts(path: &Path) -> Result<Vec<String>, Box<dyn Error>> {
    let data = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut texts = Vec::new();
    for (i, line) in data.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = || format!("{}:{}", path.display(), i + 1);
        let value: serde_json::Value =
            serde_json::from_str(line).map_err(|e| format!("{}: {e}", at()))?;
        let text = value["text"]
            .as_str()
            .ok_or_else(|| format!("{}: no string field \"text\"", at()))?;
        texts.push(text.to_string());
    }
    if texts.is_empty() {
        return Err(format!("{}: no texts", path.display()).into());
    }
    Ok(texts)
}

fn run(args: &Args) -> Result<(), Box<dyn Error>> {
    let texts = read_texts(&args.file)?;
    let bytes: usize = texts.iter().map(String::len).sum();
    let timed = |f: &dyn Fn()| {
        let start = Instant::now();
        f();
        start.elapsed().as_secs_f64()
    };
    let fp = Fingerprinter::new(args.profile)?;
    let pool = if args.threads > 1 {
        Some(
            rayon::ThreadPoolBuilder::new()
                .num_threads(args.threads)
                .build()?,
        )
    } else {
        None
    };
    let jieba = args.jieba_only.then(jieba_rs::Jieba::new);
    let go_over = |work: &[&str]| match (&jieba, &pool) {
        (Some(jieba), _) => {
            for t in work {
                black_box(jieba.cut(black_box(t), false).len());
            }
        }
        (None, None) => {
            for t in work {
                black_box(fp.fingerprint(black_box(t)));
            }
        }
        (None, Some(pool)) => {
            black_box(pool.install(|| fp.fingerprint_batch(black_box(work))));
        }
    };

    let once: Vec<&str> = texts.iter().map(String::as_str).collect();
    let warm_up = timed(&|| go_over(&once));
    let repeat = args
        .repeat
        .unwrap_or_else(|| ((0.25 / warm_up.max(1e-9)).ceil() as usize).clamp(1, 1000));
    let work: Vec<&str> = (0..repeat).flat_map(|_| once.iter().copied()).collect();
    let mut times: Vec<f64> = (0..args.runs).map(|_| timed(&|| go_over(&work))).collect();
    times.sort_by(f64::total_cmp);
    let n = times.len();
    let median = if n % 2 == 1 {
        times[n / 2]
    } else {
        (times[n / 2 - 1] + times[n / 2]) / 2.0
    };

    let corpus = args
        .file
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    // Written by hand so the keys keep this order.
    let json = |s: &str| serde_json::Value::from(s).to_string();
    let line = format!(
        concat!(
            r#"{{"tool":"neardup","profile":{},"threads":{},"corpus":{},"bytes":{},"#,
            r#""docs":{},"repeat":{},"runs":{},"median_s":{},"mb_per_s":{}}}"#
        ),
        json(if args.jieba_only {
            "jieba-rs-cut"
        } else {
            args.profile.name()
        }),
        args.threads,
        json(&corpus),
        bytes,
        texts.len(),
        repeat,
        args.runs,
        median,
        (repeat * bytes) as f64 / 1e6 / median,
    );
    println!("{line}");
    Ok(())
}

fn main() -> ExitCode {
    let args = match parse_args(std::env::args().skip(1)) {
        Ok(args) => args,
        Err(msg) if msg.is_empty() => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(msg) => {
            eprintln!("throughput: {msg}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("throughput: {e}");
            ExitCode::from(1)
        }
    }
}
