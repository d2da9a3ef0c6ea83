//! The online index on random fingerprints, as one JSON line.
//!
//! ```text
//! cargo run --release -p neardup-index --example query -- --n 10000000
//! ```
//!
//! Builds an [`neardup_index::OnlineIndex`] of `--n` random 64-bit
//! fingerprints (SplitMix64, fixed seed) with `--blocks` blocks (default:
//! the planner's choice for queries), then times `--queries` queries, half of
//! them stored fingerprints with 1 to 3 bits flipped (each must find its
//! original) and half random: one at a time on one thread, and as one batch
//! on the rayon pool. Prints the build time, queries per second both ways
//! (median of `--runs`), and the index's memory per fingerprint. With
//! `--save FILE` it also writes the index as a segment file, and times
//! opening it (median of `--runs`) and single queries on the mapped file.

use std::error::Error;
use std::process::ExitCode;
use std::time::Instant;

use neardup_core::Width;
use neardup_index::{OnlineIndex, Segment, TablePlan};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

fn flag(name: &str, default: f64) -> Result<f64, String> {
    let args: Vec<String> = std::env::args().collect();
    match args.iter().position(|a| a == name) {
        Some(i) => args
            .get(i + 1)
            .ok_or(format!("{name} needs a value"))?
            .parse()
            .map_err(|e| format!("{name}: {e}")),
        None => Ok(default),
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn run() -> Result<(), Box<dyn Error>> {
    let n = flag("--n", 1e6)? as usize;
    let queries = flag("--queries", 1e6)? as usize;
    let runs = (flag("--runs", 3.0)? as usize).max(1);
    let k = 3;
    let plan = match flag("--blocks", 0.0)? as u32 {
        0 => TablePlan::choose(Width::W64, k, n as f64, None)?.plan(Width::W64, k)?,
        r => TablePlan::new(Width::W64, k, r)?,
    };
    let mut rng = Rng(2026);
    let fps: Vec<u64> = (0..n).map(|_| rng.next()).collect();
    let started = Instant::now();
    let index = OnlineIndex::build(plan, &fps)?;
    let build_s = started.elapsed().as_secs_f64();

    let mut qs = Vec::with_capacity(queries);
    let mut expect = Vec::with_capacity(queries);
    for i in 0..queries {
        if i % 2 == 0 {
            let of = (rng.next() % n as u64) as usize;
            let mut q = fps[of];
            for _ in 0..1 + rng.next() % 3 {
                q ^= 1 << (rng.next() % 64);
            }
            qs.push(q);
            expect.push(Some(of as u32));
        } else {
            qs.push(rng.next());
            expect.push(None);
        }
    }
    let mut single = Vec::new();
    let mut found = 0usize;
    for _ in 0..runs {
        let started = Instant::now();
        found = 0;
        for (q, e) in qs.iter().zip(&expect) {
            let m = index.query(*q);
            if let Some(of) = e {
                found += usize::from(m.iter().any(|m| m.id == *of));
            }
        }
        single.push(queries as f64 / started.elapsed().as_secs_f64());
    }
    let mut batch = Vec::new();
    for _ in 0..runs {
        let started = Instant::now();
        let results = index.query_batch(&qs);
        batch.push(queries as f64 / started.elapsed().as_secs_f64());
        std::hint::black_box(results);
    }
    let planted = expect.iter().filter(|e| e.is_some()).count();
    // Saved and opened again: the time to open, and single queries on the
    // mapped file.
    let (mut write_s, mut open_s, mut segment_qps) = (0.0, 0.0, 0.0);
    if let Some(path) = std::env::args().skip_while(|a| a != "--save").nth(1) {
        let path = std::path::PathBuf::from(path);
        let names: Vec<String> = (0..n).map(|i| i.to_string()).collect();
        let started = Instant::now();
        Segment::write(&path, index.plan().clone(), &fps, &names)?;
        write_s = started.elapsed().as_secs_f64();
        let mut opens = Vec::new();
        let mut segment = None;
        for _ in 0..runs {
            let started = Instant::now();
            segment = Some(Segment::<u64>::open(&path)?);
            opens.push(started.elapsed().as_secs_f64());
        }
        open_s = median(opens);
        if let Some(segment) = segment {
            let started = Instant::now();
            for q in &qs {
                std::hint::black_box(segment.query(*q));
            }
            segment_qps = queries as f64 / started.elapsed().as_secs_f64();
        }
    }
    println!(
        r#"{{"n":{n},"k":{k},"blocks":{},"tables":{},"build_s":{build_s:.3},"queries":{queries},"single_qps":{:.0},"batch_qps":{:.0},"threads":{},"planted_found":{found},"planted":{planted},"bytes_per_fingerprint":{:.1},"write_s":{write_s:.3},"open_s":{open_s:.3},"segment_single_qps":{segment_qps:.0}}}"#,
        index.plan().blocks().len(),
        index.plan().tables(),
        median(single),
        median(batch),
        rayon::current_num_threads(),
        index.memory_bytes() as f64 / n as f64
    );
    if found != planted {
        return Err(format!("{} planted neighbours missed", planted - found).into());
    }
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("query: {e}");
            ExitCode::FAILURE
        }
    }
}
