//! All-pairs join on random fingerprints with planted near-duplicates, as
//! one JSON line.
//!
//! ```text
//! cargo run --release -p neardup-index --example pairs -- --n 10000000 --planted 100000
//! ```
//!
//! Makes `--n` random 64-bit fingerprints (SplitMix64, fixed seed) and
//! `--planted` more, each a copy of a random one with 1 to `--k` bits
//! flipped; joins them all at `--k` (default 3) with `--blocks` blocks
//! (default: `TablePlan::choose_for_join` for that many fingerprints) on the current
//! rayon pool (`RAYON_NUM_THREADS`), checks that every planted pair was
//! found, and prints the time of the join (median of `--runs`), the pairs,
//! and the peak memory of the process in bytes per fingerprint. `--brute`
//! times brute force (one thread) instead; `--dump FILE` first writes the
//! fingerprints as little-endian `u64`s, for the Python peers.

use std::error::Error;
use std::process::ExitCode;
use std::time::Instant;

use neardup_core::Width;
use neardup_index::{TablePlan, brute_force_pairs, self_join};

struct Args {
    n: usize,
    planted: usize,
    k: u32,
    blocks: Option<u32>,
    runs: usize,
    brute: bool,
    dump: Option<String>,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        n: 1_000_000,
        planted: 10_000,
        k: 3,
        blocks: None,
        runs: 3,
        brute: false,
        dump: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        if flag == "--brute" {
            args.brute = true;
            continue;
        }
        let value = it.next().ok_or(format!("{flag} needs a value"))?;
        let number = |v: &str| v.parse::<f64>().map_err(|e| format!("{flag} {v}: {e}"));
        match flag.as_str() {
            "--n" => args.n = number(&value)? as usize,
            "--planted" => args.planted = number(&value)? as usize,
            "--k" => args.k = number(&value)? as u32,
            "--blocks" => args.blocks = Some(number(&value)? as u32),
            "--runs" => args.runs = (number(&value)? as usize).max(1),
            "--dump" => args.dump = Some(value),
            _ => return Err(format!("unknown flag {flag}")),
        }
    }
    Ok(args)
}

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

/// Peak resident memory of this process, from /proc (Linux).
fn peak_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

fn run() -> Result<(), Box<dyn Error>> {
    let args = parse_args()?;
    let mut rng = Rng(2026);
    let mut fps: Vec<u64> = (0..args.n).map(|_| rng.next()).collect();
    let mut planted = Vec::with_capacity(args.planted);
    for _ in 0..args.planted {
        let of = (rng.next() % args.n as u64) as usize;
        let flips = 1 + (rng.next() % u64::from(args.k.max(1))) as u32;
        let mut x = fps[of];
        let mut flipped = 0;
        while flipped < flips.min(args.k) {
            let bit = 1u64 << (rng.next() % 64);
            if (x ^ fps[of]) & bit == 0 {
                x ^= bit;
                flipped += 1;
            }
        }
        planted.push((of as u32, fps.len() as u32));
        fps.push(x);
    }
    if let Some(path) = &args.dump {
        // The same fingerprints for the Python peers: little-endian u64s.
        let bytes: Vec<u8> = fps.iter().flat_map(|f| f.to_le_bytes()).collect();
        std::fs::write(path, bytes)?;
    }
    let n = fps.len() as f64;
    let plan = match args.blocks {
        Some(r) => TablePlan::new(Width::W64, args.k, r)?,
        None => TablePlan::choose_for_join(Width::W64, args.k, n)?.plan(Width::W64, args.k)?,
    };
    let mut times = Vec::new();
    let mut pairs = Vec::new();
    for _ in 0..args.runs {
        let started = Instant::now();
        pairs = if args.brute {
            brute_force_pairs(args.k, &fps)
        } else {
            self_join(&plan, &fps)?
        };
        times.push(started.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    let found = planted
        .iter()
        .filter(|&&(a, b)| pairs.binary_search_by(|p| (p.a, p.b).cmp(&(a, b))).is_ok())
        .count();
    let peak = peak_bytes().unwrap_or(0);
    println!(
        r#"{{"tool":"{}","n":{},"planted":{},"planted_found":{},"k":{},"blocks":{},"tables":{},"threads":{},"pairs":{},"median_s":{:.3},"peak_bytes_per_fingerprint":{:.1}}}"#,
        if args.brute { "brute force" } else { "neardup" },
        fps.len(),
        planted.len(),
        found,
        args.k,
        plan.blocks().len(),
        plan.tables(),
        rayon::current_num_threads(),
        pairs.len(),
        times[times.len() / 2],
        peak as f64 / n
    );
    if found != planted.len() {
        return Err(format!("{} planted pairs missed", planted.len() - found).into());
    }
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("pairs: {e}");
            ExitCode::FAILURE
        }
    }
}
