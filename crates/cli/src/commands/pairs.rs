//! `neardup pairs`: fingerprint JSON lines in, every pair within k out.

use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

use anyhow::{Context, Result};
use neardup_core::Width;
use neardup_index::{Pair, TablePlan, cross_join, self_join};

use crate::args::PairsArgs;
use crate::fingerprints::Set;

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
    let pairs = pool.install(|| join(&plan, &queries, base.as_ref()))?;
    let mut out = BufWriter::with_capacity(1 << 16, io::stdout());
    let b_ids = base.as_ref().map_or(&queries.ids, |b| &b.ids);
    for p in &pairs {
        out.write_all(b"{\"a\":")?;
        serde_json::to_writer(&mut out, &queries.ids[p.a as usize])?;
        out.write_all(b",\"b\":")?;
        serde_json::to_writer(&mut out, &b_ids[p.b as usize])?;
        writeln!(out, ",\"distance\":{}}}", p.distance)?;
    }
    out.flush()?;
    if !args.quiet {
        eprintln!(
            "neardup: {} pairs within {} bits among {n} fingerprints ({} tables)",
            pairs.len(),
            args.k,
            plan.tables()
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn join(plan: &TablePlan, queries: &Set, base: Option<&Set>) -> Result<Vec<Pair>> {
    let pairs = match plan.width() {
        Width::W64 => match base {
            Some(base) => cross_join(plan, &queries.narrow(), &base.narrow()),
            None => self_join(plan, &queries.narrow()),
        },
        _ => match base {
            Some(base) => cross_join(plan, &queries.bits, &base.bits),
            None => self_join(plan, &queries.bits),
        },
    };
    Ok(pairs?)
}
