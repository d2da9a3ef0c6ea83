//! `neardup pairs`: fingerprint JSON lines in, every pair within k out.

use std::collections::HashMap;
use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use neardup_core::{Fingerprint, Width};
use neardup_corpus::{Corpus, Format, Place, ReadOptions};
use neardup_index::{Pair, TablePlan, cross_join, self_join};

use crate::args::PairsArgs;

/// Fingerprints read from JSON lines, with their ids, all of one width.
struct Set {
    ids: Vec<String>,
    bits: Vec<u128>,
    width: Option<Width>,
}

pub fn run(args: &PairsArgs) -> Result<ExitCode> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.unwrap_or(0))
        .build()?;
    let mut first_width = None;
    let queries = read_set(&args.paths, args, &mut first_width)?;
    let base = match &args.against {
        Some(paths) => Some(read_set(paths, args, &mut first_width)?),
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
        Width::W64 => {
            let narrow = |s: &Set| s.bits.iter().map(|&b| b as u64).collect::<Vec<_>>();
            match base {
                Some(base) => cross_join(plan, &narrow(queries), &narrow(base)),
                None => self_join(plan, &narrow(queries)),
            }
        }
        _ => match base {
            Some(base) => cross_join(plan, &queries.bits, &base.bits),
            None => self_join(plan, &queries.bits),
        },
    };
    Ok(pairs?)
}

/// Reads the fingerprint lines of `paths`: ids unique, one width throughout
/// (`width`, shared with the other set of a join).
fn read_set(
    paths: &[std::path::PathBuf],
    args: &PairsArgs,
    width: &mut Option<Width>,
) -> Result<Set> {
    let mut options = ReadOptions::default();
    options
        .format(Format::JsonLines)
        .text_field(&args.fingerprint_field)
        .id_field(&args.id_field);
    let corpus = Corpus::open(paths, &options)?;
    let mut set = Set {
        ids: Vec::new(),
        bits: Vec::new(),
        width: None,
    };
    let mut seen: HashMap<String, Place> = HashMap::new();
    let mut first_place: Option<Place> = None;
    for doc in corpus.documents() {
        let doc = doc?;
        let fp = Fingerprint::from_hex(doc.text.trim()).with_context(|| {
            format!(
                "{}: field {:?} is not a fingerprint; give the output of `neardup fingerprint`",
                doc.place, args.fingerprint_field
            )
        })?;
        match width {
            Some(w) if *w != fp.width() => bail!(
                "{}: a {}-bit fingerprint among {}-bit ones (the first at {}); \
                 fingerprint everything with the same --width",
                doc.place,
                fp.width().bits(),
                w.bits(),
                first_place
                    .as_ref()
                    .map_or_else(|| "the other input".to_string(), Place::to_string)
            ),
            Some(_) => {}
            None => {
                *width = Some(fp.width());
                first_place = Some(doc.place.clone());
            }
        }
        if first_place.is_none() {
            first_place = Some(doc.place.clone());
        }
        if let Some(earlier) = seen.get(&doc.id) {
            bail!(
                "{}: id {:?} was already given at {earlier}; ids must be unique \
                 (use --id-field to pick another field)",
                doc.place,
                doc.id
            );
        }
        seen.insert(doc.id.clone(), doc.place.clone());
        set.bits.push(fp.bits());
        set.ids.push(doc.id);
    }
    set.width = *width;
    Ok(set)
}
