//! `neardup dedup`: documents in; the kept ones, the dropped ones with the
//! document each duplicates, the groups and a summary out, in a directory.
//!
//! The run is `neardup_output`'s (the job is `neardup_dedup`'s): this
//! module turns the flags into one, runs it with progress bars, and prints
//! its notes and a summary line.

use std::process::ExitCode;

use anyhow::Result;
use neardup_dedup::Outcome;
use neardup_output::DedupRun;

use crate::args::DedupArgs;
use crate::config;
use crate::progress::Bars;
use crate::report::count;

pub fn run(args: &DedupArgs) -> Result<ExitCode> {
    let job = config::dedup_job(args)?;
    let width = job.fingerprinter().width();
    let mut run = DedupRun::new(args.paths.clone(), args.out.clone(), job);
    run.read = config::read_options(&args.input);
    run.skip_invalid = args.input.skip_invalid;
    run.force = args.force;
    run.against = args.against.clone();
    run.save_index = args.save_index.clone();
    run.keep_field = args.keep.field().map(str::to_string);
    run.annotate = args.annotate;
    run.memory = args.memory;
    if let Some(note) = args
        .memory
        .and_then(|budget| neardup_output::below_memory_floor(budget, None))
    {
        eprintln!("neardup: note: {note}");
    }
    run.settings = serde_json::json!({
        "k": args.k,
        "short_rule": run.job.short_rule_holds(),
        "short_words": args.nearness.short_words,
        "profile": args.settings.profile,
        "width": width.bits(),
        "keep": args.keep.describe(),
        "cluster": format!("{:?}", args.cluster).to_lowercase(),
        "verify": config::verification(&args.nearness)?.map_or_else(|| "none".to_string(), |v| v.to_string()),
        "against": args.against.as_ref().map(|p| p.display().to_string()),
        "save_index": args.save_index.as_ref().map(|p| p.display().to_string()),
    });
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.unwrap_or(0))
        .build()?;
    let verifies = config::verification(&args.nearness)?.is_some();
    let bars = Bars::new(args.quiet, passes(args, verifies));
    let finished = pool.install(|| run.run(&bars))?;
    for warning in &finished.warnings {
        eprintln!("neardup: warning: {warning}");
    }
    for note in &finished.notes {
        eprintln!("neardup: note: {note}");
    }
    if !args.quiet {
        print_summary(args, &finished.outcome);
    }
    Ok(ExitCode::SUCCESS)
}

/// The passes over the documents a run makes at most: fingerprinting,
/// verifying (with verification), reading the kept documents again for the
/// index saved to (with --save-index), and reading the ids and samples the
/// outputs name.
fn passes(args: &DedupArgs, verifies: bool) -> usize {
    2 + usize::from(verifies) + usize::from(args.save_index.is_some())
}

fn print_summary(args: &DedupArgs, outcome: &Outcome) {
    let stats = outcome.stats();
    let (n, unique) = (stats.documents, stats.unique);
    let skipped = outcome.skipped();
    let against = match (&args.against, stats.dropped_against_index) {
        (Some(dir), dropped) => format!(
            ", {dropped} of them near one in {} (--against)",
            dir.display()
        ),
        (None, _) => String::new(),
    };
    let pairs = stats.pairs_by_distance.iter().sum::<u64>();
    eprintln!(
        "neardup: {}, {unique} unique, {} dropped{against}: {} exact {}, {} near-duplicate{} \
         (within {} bits{}){}",
        count(n as u64, "document", "documents"),
        n - unique,
        stats.exact_copies,
        if stats.exact_copies == 1 {
            "copy"
        } else {
            "copies"
        },
        pairs,
        if pairs == 1 { "" } else { "s" },
        args.k,
        if stats.short_rule {
            ", any distance for a short document"
        } else {
            ""
        },
        if skipped.total() > 0 {
            format!(", skipped {}", skipped.describe())
        } else {
            String::new()
        }
    );
    eprintln!(
        "neardup: wrote {}; open {} to see what was found",
        args.out.display(),
        args.out.join("report.html").display()
    );
}
