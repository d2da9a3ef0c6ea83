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
    if let Some(note) = args
        .memory
        .and_then(|budget| neardup_output::below_memory_floor(budget, None))
    {
        eprintln!("neardup: note: {note}");
    }
    let settings = serde_json::json!({
        "k": args.k,
        "short_rule": job.short_rule_holds(),
        "short_words": args.nearness.short_words,
        "profile": args.settings.profile,
        "width": job.fingerprinter().width().bits(),
        "keep": args.keep.describe(),
        "cluster": format!("{:?}", args.cluster).to_lowercase(),
        "verify": config::verification(&args.nearness)?.map_or_else(|| "none".to_string(), |v| v.to_string()),
        "against": args.against.as_ref().map(|p| p.display().to_string()),
        "save_index": args.save_index.as_ref().map(|p| p.display().to_string()),
    });
    let run = DedupRun::builder(args.paths.clone(), args.out.clone(), job)
        .read(config::read_options(&args.input))
        .skip_invalid(args.input.skip_invalid)
        .force(args.force)
        .save_index(args.save_index.clone())
        .keep_field(args.keep.field().map(str::to_string))
        .annotate(args.annotate)
        .settings(settings)
        .build();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.unwrap_or(0))
        .build()?;
    let bars = Bars::new(args.quiet, run.passes());
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
