//! Load for `neardup serve`, used by bench/serve.sh.
//!
//! ```text
//! load fill DIR N            a store of N random 64-bit fingerprints (k = 3),
//!                            written through the library in batches of 10,000
//! load query URL N SECONDS CONNECTIONS BATCH
//!                            queries for SECONDS from CONNECTIONS clients, BATCH
//!                            fingerprints a request (1: POST /v1/documents, else
//!                            :batch); half are stored fingerprints (of the N)
//!                            with 1 to 3 bits flipped, which must be found
//! load insert URL SECONDS CONNECTIONS BATCH
//!                            inserts of new random fingerprints, likewise
//! load bodies N COUNT        COUNT query bodies for POST /v1/documents, one a
//!                            line, drawn as `query` draws them (for wrk)
//! ```
//!
//! Each prints one JSON line: requests and items a second, and the median
//! and 99th percentile of a request's latency, in milliseconds.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use neardup_core::{FingerprintSettings, Profile, Width};
use neardup_store::{Insert, Store, StoreOptions, StoreSettings, Write};
use serde_json::{Value, json};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize| -> Result<&str, String> {
        args.get(i)
            .map(String::as_str)
            .ok_or_else(|| format!("argument {i} is missing; see the doc comment"))
    };
    let number =
        |i: usize| -> Result<f64, Box<dyn std::error::Error>> { Ok(arg(i)?.parse::<f64>()?) };
    match arg(0)? {
        "fill" => fill(Path::new(arg(1)?), number(2)? as u64),
        "query" => drive(
            arg(1)?,
            Some(number(2)? as u64),
            number(3)?,
            number(4)? as usize,
            number(5)? as usize,
        ),
        "compact" => {
            let store = Store::<u64>::open(Path::new(arg(1)?), None, StoreOptions::default())?;
            let started = Instant::now();
            store.compact()?;
            println!(
                "{}",
                json!({"what": "compact", "seconds": started.elapsed().as_secs_f64(), "segments": store.stats().segments})
            );
            Ok(())
        }
        "bodies" => {
            bodies(number(1)? as u64, number(2)? as u64);
            Ok(())
        }
        "insert" => drive(
            arg(1)?,
            None,
            number(2)?,
            number(3)? as usize,
            number(4)? as usize,
        ),
        other => Err(format!("unknown command {other:?}").into()),
    }
}

/// The `i`th stored fingerprint (splitmix64).
fn stored(i: u64) -> u64 {
    let mut z = i.wrapping_add(1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A query: half the time a stored fingerprint of the `n` with 1 to 3
/// bits flipped (and its id, which the answer must hold), else a random one.
fn query(n: u64, state: u64) -> (u64, Option<String>) {
    if state.is_multiple_of(2) {
        let i = (state >> 1) % n;
        let flips = 1 + (state >> 40) % 3;
        let fp = (0..flips).fold(stored(i), |fp, f| fp ^ 1 << ((state >> (8 * f)) % 64));
        (fp, Some(format!("d{i}")))
    } else {
        (state, None)
    }
}

fn bodies(n: u64, count: u64) {
    let mut state = stored(42);
    for _ in 0..count {
        state = stored(state);
        let (fp, _) = query(n, state);
        println!(
            "{}",
            json!({"fingerprint": format!("{fp:016x}"), "mode": "query"})
        );
    }
}

fn fill(dir: &Path, n: u64) -> Result<(), Box<dyn std::error::Error>> {
    // The settings `neardup serve -k 3` records, so that it opens the store.
    let fingerprints = FingerprintSettings::of_profile(Profile::Auto, Width::W64);
    let settings = StoreSettings::builder(3).fingerprint(fingerprints).build();
    let started = Instant::now();
    let store = Store::<u64>::open(dir, Some(&settings), StoreOptions::default())?;
    let mut i = 0;
    while i < n {
        let end = (i + 10_000).min(n);
        let writes = (i..end)
            .map(|j| Write::Insert(Insert::new(stored(j), 3).id(format!("d{j}"))))
            .collect();
        store.write(writes, None)?;
        i = end;
    }
    // A bulk load ends with its last flush, so that the process leaves
    // nothing to redo.
    store.wait_for_flush();
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "{}",
        json!({"what": "fill", "fingerprints": n, "seconds": seconds, "per_second": n as f64 / seconds,
               "segments": store.stats().segments})
    );
    Ok(())
}

/// Drives the server at `url` for `seconds` from `connections` clients.
fn drive(
    url: &str,
    query_of: Option<u64>,
    seconds: f64,
    connections: usize,
    batch: usize,
) -> Result<(), Box<dyn std::error::Error>> {
    let stop = Arc::new(AtomicBool::new(false));
    let latencies = Arc::new(Mutex::new(Vec::new()));
    let failures = Arc::new(Mutex::new(Vec::<String>::new()));
    let started = Instant::now();
    let clients: Vec<_> = (0..connections)
        .map(|c| {
            let (stop, latencies, failures, url) = (
                stop.clone(),
                latencies.clone(),
                failures.clone(),
                url.to_string(),
            );
            std::thread::spawn(move || {
                let agent: ureq::Agent = ureq::Agent::config_builder()
                    .http_status_as_error(false)
                    .timeout_global(Some(Duration::from_secs(30)))
                    .build()
                    .into();
                let mut mine = Vec::new();
                let mut state = stored(1_000_000_007 + c as u64);
                while !stop.load(Ordering::Relaxed) {
                    let mut docs = Vec::with_capacity(batch);
                    let mut expect = Vec::with_capacity(batch);
                    for _ in 0..batch {
                        state = stored(state);
                        let doc = match query_of {
                            Some(n) => {
                                let (fp, id) = query(n, state);
                                expect.push(id);
                                json!({"fingerprint": format!("{fp:016x}"), "mode": "query"})
                            }
                            None => {
                                expect.push(None);
                                json!({"fingerprint": format!("{state:016x}"), "mode": "insert"})
                            }
                        };
                        docs.push(doc);
                    }
                    let sent = Instant::now();
                    let (path, body) = if batch == 1 {
                        ("/v1/documents", docs.pop().unwrap_or_default())
                    } else {
                        ("/v1/documents:batch", json!({"documents": docs}))
                    };
                    let answer = agent.post(format!("{url}{path}")).send_json(body);
                    let ok = match answer {
                        Ok(mut r) if r.status().is_success() => {
                            let body: Value = r.body_mut().read_json().unwrap_or_default();
                            let results = if batch == 1 {
                                vec![body]
                            } else {
                                body["results"].as_array().cloned().unwrap_or_default()
                            };
                            results.len() == batch
                                && results.iter().zip(&expect).all(|(r, want)| match want {
                                    Some(id) => r["duplicates"]
                                        .as_array()
                                        .is_some_and(|d| d.iter().any(|d| d["id"] == *id)),
                                    None => true,
                                })
                        }
                        Ok(r) => {
                            failures
                                .lock()
                                .unwrap_or_else(|e| e.into_inner())
                                .push(format!("status {}", r.status()));
                            false
                        }
                        Err(e) => {
                            failures
                                .lock()
                                .unwrap_or_else(|e| e.into_inner())
                                .push(e.to_string());
                            false
                        }
                    };
                    if !ok {
                        failures
                            .lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .push("a stored fingerprint not found".into());
                    }
                    mine.push(sent.elapsed().as_secs_f64() * 1e3);
                }
                latencies
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .extend(mine);
            })
        })
        .collect();
    std::thread::sleep(Duration::from_secs_f64(seconds));
    stop.store(true, Ordering::Relaxed);
    for client in clients {
        let _ = client.join();
    }
    let elapsed = started.elapsed().as_secs_f64();
    let mut latencies = std::mem::take(&mut *latencies.lock().unwrap_or_else(|e| e.into_inner()));
    latencies.sort_by(f64::total_cmp);
    let at = |q: f64| {
        latencies
            .get(((latencies.len() as f64 - 1.0) * q) as usize)
            .copied()
            .unwrap_or(f64::NAN)
    };
    let failures = failures.lock().unwrap_or_else(|e| e.into_inner());
    println!(
        "{}",
        json!({
            "what": if query_of.is_some() { "query" } else { "insert" },
            "connections": connections, "batch": batch, "seconds": elapsed,
            "requests_per_second": latencies.len() as f64 / elapsed,
            "items_per_second": (latencies.len() * batch) as f64 / elapsed,
            "p50_ms": at(0.5), "p99_ms": at(0.99),
            "failures": failures.len(), "first_failure": failures.first(),
        })
    );
    if !failures.is_empty() {
        return Err(format!("{} requests failed", failures.len()).into());
    }
    Ok(())
}
