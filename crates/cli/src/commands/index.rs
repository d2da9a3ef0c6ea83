//! `neardup index`: a store of fingerprints (the one `neardup serve`
//! keeps), built, added to, queried and described.

use std::io::{self, BufWriter, Write};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use neardup_core::Width;
use neardup_corpus::Corpus;
use neardup_store::{AnyStore, StoreOptions, StoreSettings};
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
    if AnyStore::exists(&args.index) {
        bail!(
            "{} already holds an index; add to it, or remove it first",
            args.index.display()
        );
    }
    let mut width = None;
    let fields = (
        &args.fields.fingerprint_field[..],
        &args.fields.id_field[..],
    );
    let set = Set::read(&args.paths, fields, &mut width)?;
    let Some(width) = width else {
        bail!("no fingerprints in the input: an index needs at least one");
    };
    if let Some(given) = &args.settings.width
        && given != &width.bits().to_string()
    {
        bail!(
            "--width {given}: the fingerprints given are {}-bit",
            width.bits()
        );
    }
    let mut fingerprints = config::fingerprinter(&args.settings)?.settings();
    // The fingerprints read decide the width (--width, when given, agrees).
    fingerprints.width = width;
    let settings = StoreSettings::builder(args.k)
        .fingerprint(fingerprints)
        .build();
    let store = AnyStore::open(&args.index, Some(&settings), StoreOptions::default())?;
    store.insert_all(&set.bits, &set.ids)?;
    eprintln!(
        "neardup: indexed {} in {}",
        count(set.ids.len() as u64, "fingerprint", "fingerprints"),
        args.index.display()
    );
    Ok(ExitCode::SUCCESS)
}

fn add(args: &IndexAddArgs) -> Result<ExitCode> {
    let store = AnyStore::open(&args.index, None, StoreOptions::default())?;
    let mut read_width = Some(store.settings().width);
    let fields = (
        &args.fields.fingerprint_field[..],
        &args.fields.id_field[..],
    );
    let set = Set::read(&args.paths, fields, &mut read_width)?;
    store.insert_all(&set.bits, &set.ids)?;
    eprintln!(
        "neardup: added {} to {} ({} in all)",
        count(set.ids.len() as u64, "fingerprint", "fingerprints"),
        args.index.display(),
        store.stats().documents
    );
    Ok(ExitCode::SUCCESS)
}

fn query(args: &IndexQueryArgs) -> Result<ExitCode> {
    let store = AnyStore::open_read_only(&args.index)?;
    let width = store.settings().width;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.unwrap_or(0))
        .build()?;
    let set = pool.install(|| {
        if args.documents {
            fingerprint_documents(args, &store)
        } else {
            let mut read_width = Some(width);
            let fields = (&args.fingerprint_field[..], &args.input.id_field[..]);
            Set::read(&args.paths, fields, &mut read_width)
        }
    })?;
    let started = Instant::now();
    let (matched, matches) = pool.install(|| query_in(args, &store, &set))?;
    if !args.quiet {
        eprintln!(
            "neardup: {}, {matched} with matches, {} in {:.2} s",
            count(set.ids.len() as u64, "query", "queries"),
            count(matches, "match", "matches"),
            started.elapsed().as_secs_f64()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The documents of the query's inputs, fingerprinted with its settings,
/// which must be the index's.
fn fingerprint_documents(args: &IndexQueryArgs, store: &AnyStore) -> Result<Set> {
    let stored = store.settings();
    let fingerprinter = config::fingerprinter(&args.settings)?;
    let width: Width = fingerprinter.width();
    if width != stored.width {
        bail!(
            "--width {}: the index holds {}-bit fingerprints; fingerprint with --width {}",
            width.bits(),
            stored.width.bits(),
            stored.width.bits()
        );
    }
    let ours = fingerprinter.settings();
    if let Some(differ) = stored
        .fingerprint
        .as_ref()
        .and_then(|s| s.difference(&ours))
    {
        bail!(
            "the index's fingerprints were made with other settings ({differ}): give the \
             index's settings"
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

/// Writes each query's matches as a JSON line; returns how many queries had
/// matches, and how many matches there were.
fn query_in(args: &IndexQueryArgs, store: &AnyStore, queries: &Set) -> Result<(u64, u64)> {
    let k = store.settings().k;
    let limit = args.k.unwrap_or(k);
    if limit > k {
        bail!(
            "-k {limit}: the index finds fingerprints at most {k} bits apart; \
             build one with -k {limit}"
        );
    }
    let results: Vec<_> = queries
        .bits
        .par_iter()
        .map(|&q| store.query(q, limit))
        .collect::<Result<_, _>>()
        .context("querying the index")?;
    let mut out = BufWriter::with_capacity(1 << 16, io::stdout());
    let (mut matched, mut matches) = (0, 0);
    for (id, hits) in queries.ids.iter().zip(results) {
        matched += u64::from(!hits.is_empty());
        matches += hits.len() as u64;
        out.write_all(b"{\"id\":")?;
        serde_json::to_writer(&mut out, id)?;
        out.write_all(b",\"matches\":[")?;
        for (i, hit) in hits.iter().enumerate() {
            if i > 0 {
                out.write_all(b",")?;
            }
            out.write_all(b"{\"id\":")?;
            serde_json::to_writer(&mut out, &hit.id)?;
            write!(out, ",\"distance\":{}}}", hit.distance)?;
        }
        out.write_all(b"]}\n")?;
    }
    out.flush()?;
    Ok((matched, matches))
}

fn stats(args: &IndexStatsArgs) -> Result<ExitCode> {
    let store = AnyStore::open_read_only(&args.index)?;
    let settings = store.settings();
    let stats = store.stats();
    let n = stats.documents;
    let line = serde_json::json!({
        "index": args.index.display().to_string(),
        "fingerprints": n,
        "width": settings.width.bits(),
        "k": settings.k,
        "segments": stats.segments,
        "recent": stats.recent,
        "fingerprint_settings": settings.fingerprint,
        // The format this build writes; segments of a former one (no
        // filter of names) are counted apart.
        "format_version": neardup_index::SEGMENT_FORMAT,
        "former_segments": stats.former_segments,
        "file_bytes": store.file_bytes(),
        "bytes_per_fingerprint": store.file_bytes() as f64 / n.max(1) as f64,
    });
    println!("{line}");
    Ok(ExitCode::SUCCESS)
}
