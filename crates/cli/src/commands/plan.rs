//! `neardup plan`: the table plans for a number of fingerprints, and the
//! one the index and the join would take.

use std::process::ExitCode;

use anyhow::{Context, Result};
use neardup_core::Width;
use neardup_index::TablePlan;

use crate::args::PlanArgs;

pub fn run(args: &PlanArgs) -> Result<ExitCode> {
    let width = Width::from_bits(args.width)?;
    let n = args.n;
    let queries = TablePlan::choose(width, args.k, n, args.max_bytes)
        .with_context(|| format!("-k {}", args.k))?;
    let join = TablePlan::choose_for_join(width, args.k, n)?;
    println!(
        "{n:.3e} fingerprints of {} bits, pairs within k = {}:\n",
        width.bits(),
        args.k
    );
    println!(
        "{:>6} {:>7} {:>8} {:>16} {:>12} {:>14} {:>14}  chosen for",
        "blocks", "tables", "key bits", "candidates/query", "bytes/fp", "query work", "join work"
    );
    // Plans past the chosen ones only get worse: show a few of them.
    let shown = queries.chosen.max(join.chosen) + 4;
    for (i, o) in queries.options.iter().enumerate().take(shown) {
        let mut chosen = Vec::new();
        if i == queries.chosen {
            chosen.push("queries");
        }
        if i == join.chosen {
            chosen.push("join");
        }
        println!(
            "{:>6} {:>7} {:>8} {:>16.3e} {:>12.1} {:>14.3e} {:>14.3e}  {}",
            o.blocks,
            o.tables,
            o.min_key_bits,
            o.candidates_per_query,
            o.bytes_per_fingerprint,
            o.work,
            o.join_work,
            chosen.join(", ")
        );
    }
    let q = &queries.options[queries.chosen];
    let j = &join.options[join.chosen];
    println!(
        "\nqueries: {} blocks, {} tables on keys of {}+ bits: the least work per query \
         (a probe per table plus a read per candidate){}.",
        q.blocks,
        q.tables,
        q.min_key_bits,
        args.max_bytes.map_or(String::new(), |m| format!(
            " within {m} bytes per fingerprint"
        ))
    );
    println!(
        "join:    {} blocks, {} tables: the least sorting (n log n per table) plus \
         comparing the pairs that share a key; memory does not depend on the tables.",
        j.blocks, j.tables
    );
    Ok(ExitCode::SUCCESS)
}
