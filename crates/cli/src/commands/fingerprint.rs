//! `neardup fingerprint`: documents in, one JSON line per document out.

use std::io::{self, BufWriter, Write};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Result;
use neardup_core::{Explanation, Fingerprint};
use neardup_corpus::Corpus;

use crate::args::FingerprintArgs;
use crate::progress::Progress;
use crate::report::count;
use crate::{config, pipeline};

enum Line {
    Plain(Fingerprint),
    Explained(Explanation),
}

pub fn run(args: &FingerprintArgs) -> Result<ExitCode> {
    let fingerprinter = config::fingerprinter(&args.settings)?;
    let corpus = Corpus::open(&args.paths, &config::read_options(&args.input))?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.unwrap_or(0))
        .build()?;
    let progress = Progress::new(corpus.total_bytes(), args.quiet);
    let started = Instant::now();
    let mut out = BufWriter::with_capacity(1 << 16, io::stdout());
    let mut bytes = 0u64;
    let skipped = pool.install(|| {
        pipeline::run(
            &corpus,
            args.input.skip_invalid,
            &progress,
            |doc| match args.explain {
                Some(_) => Line::Explained(fingerprinter.explain(&doc.text)),
                None => Line::Plain(fingerprinter.fingerprint(&doc.text)),
            },
            |doc, line| {
                bytes += doc.text.len() as u64;
                write_line(&mut out, &doc.id, &line, args.explain.unwrap_or(0))
            },
        )
    })?;
    out.flush()?;
    progress.finish();
    if skipped.total() > 0 {
        eprintln!("neardup: skipped {}", skipped.describe());
    }
    if !args.quiet {
        let seconds = started.elapsed().as_secs_f64();
        eprintln!(
            "neardup: {}, {:.1} MB in {:.2} s ({:.1} MB/s)",
            count(progress.documents(), "document", "documents"),
            bytes as f64 / 1e6,
            seconds,
            bytes as f64 / 1e6 / seconds.max(1e-9)
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn write_line(out: &mut impl Write, id: &str, line: &Line, top: usize) -> Result<()> {
    out.write_all(b"{\"id\":")?;
    serde_json::to_writer(&mut *out, id)?;
    match line {
        Line::Plain(fp) => write!(out, ",\"fingerprint\":\"{fp}\"}}")?,
        Line::Explained(e) => {
            write!(
                out,
                ",\"fingerprint\":\"{}\",\"profile\":\"{}\"",
                e.fingerprint, e.profile
            )?;
            write!(out, ",\"feature_count\":{}", e.features.len())?;
            let top: Vec<(&str, f64)> = e
                .top(top)
                .into_iter()
                .map(|f| (f.text.as_str(), f.weight))
                .collect();
            out.write_all(b",\"features\":")?;
            serde_json::to_writer(&mut *out, &top)?;
            out.write_all(b"}")?;
        }
    }
    out.write_all(b"\n")?;
    Ok(())
}
