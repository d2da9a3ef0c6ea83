//! `neardup index`: an index directory of fingerprints, built, added to,
//! queried and described.

use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use neardup_core::Width;
use neardup_corpus::Corpus;
use neardup_index::{AnyIndexDir, TablePlan};
use rayon::prelude::*;

use crate::args::{IndexAddArgs, IndexBuildArgs, IndexCommand, IndexQueryArgs, IndexStatsArgs};
use crate::fingerprints::Set;
use crate::progress::Progress;
use crate::report::count;
use crate::{config, pipeline};

pub fn run(command: &IndexCommand) -> Result<ExitCode> {
    match command {
        IndexCommand::Build(a) => build(a),
        IndexCommand::Add(a) => add(a),
        IndexCommand::Query(a) => query(a),
        IndexCommand::Stats(a) => stats(a),
    }
}

fn build(args: &IndexBuildArgs) -> Result<ExitCode> {
    let mut width = None;
    let fields = (
        &args.fields.fingerprint_field[..],
        &args.fields.id_field[..],
    );
    let set = Set::read(&args.paths, fields, &mut width)?;
    let Some(width) = width else {
        bail!("no fingerprints in the input: an index needs at least one");
    };
    let n = args.expected.unwrap_or(set.bits.len() as f64).max(1.0);
    let plan = match args.blocks {
        Some(r) => TablePlan::new(width, args.k, r),
        None => TablePlan::choose(width, args.k, n, None).and_then(|c| c.plan(width, args.k)),
    }
    .with_context(|| format!("-k {}", args.k))?;
    let tables = plan.tables();
    AnyIndexDir::create(&args.index, plan, &set.bits, &set.ids)?;
    eprintln!(
        "neardup: indexed {} in {} ({tables} tables)",
        count(set.ids.len() as u64, "fingerprint", "fingerprints"),
        args.index.display()
    );
    Ok(ExitCode::SUCCESS)
}

fn add(args: &IndexAddArgs) -> Result<ExitCode> {
    let mut index = AnyIndexDir::open(&args.index)?;
    let mut read_width = Some(index.width());
    let fields = (
        &args.fields.fingerprint_field[..],
        &args.fields.id_field[..],
    );
    let set = Set::read(&args.paths, fields, &mut read_width)?;
    index.add(&set.bits, &set.ids)?;
    eprintln!(
        "neardup: added {} to {} ({} in all)",
        count(set.ids.len() as u64, "fingerprint", "fingerprints"),
        args.index.display(),
        index.len()
    );
    Ok(ExitCode::SUCCESS)
}

fn query(args: &IndexQueryArgs) -> Result<ExitCode> {
    let index = AnyIndexDir::open(&args.index)?;
    let width = index.width();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.unwrap_or(0))
        .build()?;
    let set = pool.install(|| {
        if args.documents {
            fingerprint_documents(args, width)
        } else {
            let mut read_width = Some(width);
            let fields = (&args.fingerprint_field[..], &args.input.id_field[..]);
            Set::read(&args.paths, fields, &mut read_width)
        }
    })?;
    pool.install(|| query_in(args, &index, &set))?;
    Ok(ExitCode::SUCCESS)
}

/// The documents of the query's inputs, fingerprinted with its settings.
fn fingerprint_documents(args: &IndexQueryArgs, width: Width) -> Result<Set> {
    let fingerprinter = config::fingerprinter(&args.settings)?;
    if fingerprinter.width() != width {
        bail!(
            "--width {}: the index holds {}-bit fingerprints; fingerprint with --width {}",
            fingerprinter.width().bits(),
            width.bits(),
            width.bits()
        );
    }
    let corpus = Corpus::open(&args.paths, &config::read_options(&args.input))?;
    let progress = Progress::new(corpus.total_bytes(), true);
    let mut set = Set {
        ids: Vec::new(),
        bits: Vec::new(),
    };
    let skipped = pipeline::run(
        &corpus,
        args.input.skip_invalid,
        &progress,
        |doc| fingerprinter.fingerprint(&doc.text),
        |doc, fp| {
            set.ids.push(doc.id.clone());
            set.bits.push(fp.bits());
            Ok(())
        },
    )?;
    if skipped.total() > 0 {
        eprintln!("neardup: skipped {}", skipped.describe());
    }
    Ok(set)
}

fn query_in(args: &IndexQueryArgs, index: &AnyIndexDir, queries: &Set) -> Result<()> {
    let k = index.plan().k();
    let limit = args.k.unwrap_or(k);
    if limit > k {
        bail!(
            "-k {limit}: the index finds fingerprints at most {k} bits apart; \
             build one with -k {limit}"
        );
    }
    let results: Vec<_> = queries.bits.par_iter().map(|&q| index.query(q)).collect();
    let mut out = BufWriter::with_capacity(1 << 16, io::stdout());
    for (id, matches) in queries.ids.iter().zip(results) {
        out.write_all(b"{\"id\":")?;
        serde_json::to_writer(&mut out, id)?;
        out.write_all(b",\"matches\":[")?;
        let mut first = true;
        for m in matches.iter().filter(|m| m.distance <= limit) {
            if !first {
                out.write_all(b",")?;
            }
            first = false;
            out.write_all(b"{\"id\":")?;
            serde_json::to_writer(&mut out, index.name(m.id).unwrap_or(""))?;
            write!(out, ",\"distance\":{}}}", m.distance)?;
        }
        out.write_all(b"]}\n")?;
    }
    out.flush()?;
    Ok(())
}

fn stats(args: &IndexStatsArgs) -> Result<ExitCode> {
    let index = AnyIndexDir::open(&args.index)?;
    let plan = index.plan();
    let n = index.len();
    let line = serde_json::json!({
        "index": args.index.display().to_string(),
        "fingerprints": n,
        "width": plan.width().bits(),
        "k": plan.k(),
        "blocks": plan.blocks().len(),
        "tables": plan.tables(),
        "format_version": neardup_index::FORMAT_VERSION,
        "file_bytes": index.file_bytes(),
        "bytes_per_fingerprint": index.file_bytes() as f64 / n.max(1) as f64,
    });
    println!("{line}");
    Ok(ExitCode::SUCCESS)
}
