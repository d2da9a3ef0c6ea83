//! `neardup pairs`: fingerprint JSON lines in, every pair within k out.

use std::io::{self, BufWriter, Write};
use std::process::ExitCode;
use std::sync::Mutex;

use anyhow::{Context, Result};
use neardup_core::Width;
use neardup_index::{Pair, SpillSort, TablePlan, cross_join_each, self_join_each};

use crate::args::PairsArgs;
use crate::fingerprints::Set;
use crate::report::count;

/// The default of `--memory`: the sort of the pairs holds half of it.
const DEFAULT_MEMORY: u64 = 256 << 20;

pub fn run(args: &PairsArgs) -> Result<ExitCode> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.unwrap_or(0))
        .build()?;
    let mut first_width = None;
    let fields = (&args.fingerprint_field[..], &args.id_field[..]);
    let queries = Set::read(&args.paths, fields, &mut first_width)?;
    let base = match &args.against {
        Some(paths) => Some(Set::read(paths, fields, &mut first_width)?),
        None => None,
    };
    let Some(width) = first_width else {
        return Ok(ExitCode::SUCCESS);
    };
    let n = queries.bits.len() + base.as_ref().map_or(0, |b| b.bits.len());
    let plan = match args.blocks {
        Some(r) => TablePlan::new(width, args.k, r),
        None => TablePlan::choose_for_join(width, args.k, n as f64)
            .and_then(|choice| choice.plan(width, args.k)),
    }
    .with_context(|| format!("-k {}", args.k))?;
    // Pairs can be far more than fingerprints (30,000 equal ones make 450
    // million): past the memory budget they are sorted in runs on disk.
    let budget = args.memory.unwrap_or(DEFAULT_MEMORY) / 2;
    let sort = Mutex::new(SpillSort::new(budget, std::env::temp_dir()));
    let sink = |pairs: &[Pair]| match sort.lock() {
        Ok(mut sort) => sort.push(pairs),
        Err(poisoned) => poisoned.into_inner().push(pairs),
    };
    pool.install(|| join(&plan, &queries, base.as_ref(), &sink))?;
    let sort = sort
        .into_inner()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let found = sort.len();
    let mut out = BufWriter::with_capacity(1 << 16, io::stdout());
    let b_ids = base.as_ref().map_or(&queries.ids, |b| &b.ids);
    for p in pool.install(|| sort.finish())? {
        let p = p?;
        out.write_all(b"{\"a\":")?;
        serde_json::to_writer(&mut out, &queries.ids[p.a as usize])?;
        out.write_all(b",\"b\":")?;
        serde_json::to_writer(&mut out, &b_ids[p.b as usize])?;
        writeln!(out, ",\"distance\":{}}}", p.distance)?;
    }
    out.flush()?;
    if !args.quiet {
        eprintln!(
            "neardup: {} within {} bits among {} ({} tables)",
            count(found, "pair", "pairs"),
            args.k,
            count(n as u64, "fingerprint", "fingerprints"),
            plan.tables()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Hands every pair of the join to `sink`.
fn join(
    plan: &TablePlan,
    queries: &Set,
    base: Option<&Set>,
    sink: &(dyn Fn(&[Pair]) -> neardup_index::Result<()> + Sync),
) -> Result<()> {
    match plan.width() {
        Width::W64 => match base {
            Some(base) => cross_join_each(plan, &queries.narrow(), &base.narrow(), sink),
            None => self_join_each(plan, &queries.narrow(), sink),
        },
        _ => match base {
            Some(base) => cross_join_each(plan, &queries.bits, &base.bits, sink),
            None => self_join_each(plan, &queries.bits, sink),
        },
    }?;
    Ok(())
}
