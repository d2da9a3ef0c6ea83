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
//!                            inserts of new random fingerprints, likewise (new
//!                            in each run: drawn from the clock's nanoseconds, so
//!                            that a run on a store another filled inserts, never
//!                            repeats its ids; each must answer `inserted`)
//! load query|insert ... RATE the same, paced: RATE requests a second in all,
//!                            each client's on a fixed schedule (open loop, as
//!                            wrk2 paces), a request's latency counted from
//!                            when it was due, so that a stall counts for every
//!                            request it held back
//! load insert ... RATE ids  paced inserts, each with an id that sorts
//!                            anywhere among the stored ones (`d` and a random
//!                            number, as a crawler's URLs would)
//! load bodies N COUNT        COUNT query bodies for POST /v1/documents, one a
//!                            line, drawn as `query` draws them (for wrk)
//! load write DIR COUNT       COUNT one-document writes through the library,
//!                            one after another, on the store in DIR (a copy:
//!                            they stay): each write's latency, no HTTP
//! load crash DIR COUNT       COUNT documents written in batches of 1,000, then
//!                            the process aborts, as a killed writer would
//! load open DIR              the time the store in DIR takes to open (after a
//!                            crash, with the log's repair)
//! ```
//!
//! Each prints one JSON line: `query` and `insert` their requests and
//! items a second, and the median, 99th and 99.9th percentile of a
//! request's latency, in milliseconds (paced: also the rate asked for, and
//! how many requests went out more than a millisecond late, for want of a
//! free client); `write` the same of its writes.

use std::path::Path;
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
            Asked::Query {
                n: number(2)? as u64,
            },
            number(3)?,
            number(4)? as usize,
            number(5)? as usize,
            args.get(6).map(|r| r.parse::<f64>()).transpose()?,
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
        "write" => write(Path::new(arg(1)?), number(2)? as u64),
        "crash" => crash(Path::new(arg(1)?), number(2)? as u64),
        "open" => {
            let started = Instant::now();
            let store = Store::<u64>::open(Path::new(arg(1)?), None, StoreOptions::default())?;
            println!(
                "{}",
                json!({"what": "open", "seconds": started.elapsed().as_secs_f64(),
                       "recent": store.stats().recent})
            );
            Ok(())
        }
        "bodies" => {
            bodies(number(1)? as u64, number(2)? as u64);
            Ok(())
        }
        "insert" => drive(
            arg(1)?,
            Asked::Insert {
                ids: match args.get(6).map(String::as_str) {
                    None => false,
                    Some("ids") => true,
                    Some(other) => {
                        return Err(format!("after RATE: `ids` or nothing, not {other:?}").into());
                    }
                },
            },
            number(2)?,
            number(3)? as usize,
            number(4)? as usize,
            args.get(5).map(|r| r.parse::<f64>()).transpose()?,
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

/// Writes `count` new random fingerprints to the store in `dir` one at a
/// time, each its own commit, and prints the latencies of those writes.
fn write(dir: &Path, count: u64) -> Result<(), Box<dyn std::error::Error>> {
    if count == 0 {
        return Err("COUNT is at least 1".into());
    }
    let store = Store::<u64>::open(dir, None, StoreOptions::default())?;
    let mut latencies = Vec::with_capacity(count as usize);
    let mut state = stored(2_000_000_011);
    let started = Instant::now();
    for _ in 0..count {
        state = stored(state);
        let sent = Instant::now();
        store.write(vec![Write::Insert(Insert::new(state, 3))], None)?;
        latencies.push(sent.elapsed().as_secs_f64() * 1e3);
    }
    let seconds = started.elapsed().as_secs_f64();
    latencies.sort_by(f64::total_cmp);
    let at = |q: f64| latencies[((latencies.len() - 1) as f64 * q) as usize];
    println!(
        "{}",
        json!({"what": "write", "writes": count, "per_second": count as f64 / seconds,
               "p50_ms": at(0.5), "p90_ms": at(0.9), "p99_ms": at(0.99), "p999_ms": at(0.999),
               "max_ms": at(1.0)})
    );
    Ok(())
}

/// Writes `count` new random fingerprints to the store in `dir` in batches
/// of 1,000, then aborts: what a writer killed after its last commit
/// leaves.
fn crash(dir: &Path, count: u64) -> Result<(), Box<dyn std::error::Error>> {
    let store = Store::<u64>::open(dir, None, StoreOptions::default())?;
    let mut state = stored(3_000_000_019);
    let mut written = 0;
    while written < count {
        let batch = (count - written).min(1_000);
        let writes = (0..batch)
            .map(|_| {
                state = stored(state);
                Write::Insert(Insert::new(state, 3))
            })
            .collect();
        store.write(writes, None)?;
        written += batch;
    }
    eprintln!(
        "{}",
        json!({"what": "crash", "written": written, "recent": store.stats().recent})
    );
    std::process::abort()
}

/// What one client saw.
#[derive(Default)]
struct Seen {
    latencies_ms: Vec<f64>,
    failures: Vec<String>,
    late: u64,
}

/// What the clients ask.
#[derive(Clone, Copy)]
enum Asked {
    /// Queries, half of them near one of the `n` stored fingerprints.
    Query { n: u64 },
    /// Inserts of new random fingerprints, each with an id of its own
    /// (`ids`: one that sorts anywhere among the stored ones, as a
    /// crawler's URLs do) or none (the store numbers them in order).
    Insert { ids: bool },
}

/// Drives the server at `url` for `seconds` from `connections` clients,
/// each as fast as it is answered, or paced to `rate` requests a second in
/// all. The clients are tasks on two threads (as `wrk -t2` runs), each
/// with its own keep-alive connection.
fn drive(
    url: &str,
    asked: Asked,
    seconds: f64,
    connections: usize,
    batch: usize,
    rate: Option<f64>,
) -> Result<(), Box<dyn std::error::Error>> {
    if rate.is_some_and(|r| r.is_nan() || r <= 0.0) {
        return Err("RATE is requests a second, above 0".into());
    }
    let address = url
        .strip_prefix("http://")
        .ok_or("URL is http://HOST:PORT")?
        .trim_end_matches('/')
        .to_string();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    // Each run draws its own: a run that drew what the one before it drew
    // would repeat its ids, every insert answered `id_taken`.
    let run = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |t| t.as_nanos() as u64);
    let started = Instant::now();
    let end = started + Duration::from_secs_f64(seconds);
    let seen: Vec<Seen> = runtime.block_on(async {
        let clients: Vec<_> = (0..connections)
            .map(|c| {
                let address = address.clone();
                // Client c's i-th request is due at (c + i·connections) /
                // rate: the clients' schedules interleave into one even
                // stream.
                let due = move |i: u64| {
                    rate.map(|r| {
                        started
                            + Duration::from_secs_f64(
                                (c as f64 + i as f64 * connections as f64) / r,
                            )
                    })
                };
                let seed = stored(run ^ c as u64);
                tokio::spawn(client(address, asked, seed, batch, end, due))
            })
            .collect();
        let mut seen = Vec::new();
        for client in clients {
            seen.push(client.await.unwrap_or_else(|e| Seen {
                failures: vec![e.to_string()],
                ..Seen::default()
            }));
        }
        seen
    });
    let elapsed = started.elapsed().as_secs_f64();
    let mut latencies: Vec<f64> = seen
        .iter()
        .flat_map(|s| s.latencies_ms.iter().copied())
        .collect();
    latencies.sort_by(f64::total_cmp);
    let at = |q: f64| {
        latencies
            .get(((latencies.len() as f64 - 1.0) * q) as usize)
            .copied()
            .unwrap_or(f64::NAN)
    };
    let failures: Vec<&String> = seen.iter().flat_map(|s| &s.failures).collect();
    println!(
        "{}",
        json!({
            "what": match asked { Asked::Query { .. } => "query", Asked::Insert { .. } => "insert" },
            "connections": connections, "batch": batch, "seconds": elapsed,
            "requests_per_second": latencies.len() as f64 / elapsed,
            "items_per_second": (latencies.len() * batch) as f64 / elapsed,
            "p50_ms": at(0.5), "p99_ms": at(0.99), "p999_ms": at(0.999),
            "rate": rate, "late": seen.iter().map(|s| s.late).sum::<u64>(),
            "failures": failures.len(), "first_failure": failures.first(),
        })
    );
    if !failures.is_empty() {
        return Err(format!("{} requests failed", failures.len()).into());
    }
    Ok(())
}

/// One client: its requests on one connection until `end`, each sent when
/// `due` says (paced) or at once, drawn from `seed`.
async fn client(
    address: String,
    asked: Asked,
    seed: u64,
    batch: usize,
    end: Instant,
    due: impl Fn(u64) -> Option<Instant>,
) -> Seen {
    let mut seen = Seen::default();
    let stream = match tokio::net::TcpStream::connect(&address).await {
        Ok(stream) => stream,
        Err(e) => {
            seen.failures.push(format!("connect {address}: {e}"));
            return seen;
        }
    };
    let _ = stream.set_nodelay(true);
    let (mut sender, connection) =
        match hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream)).await {
            Ok(pair) => pair,
            Err(e) => {
                seen.failures.push(e.to_string());
                return seen;
            }
        };
    tokio::spawn(connection);
    let path = match batch {
        1 => "/v1/documents",
        _ => "/v1/documents:batch",
    };
    let mut state = seed;
    let mut free_since = Instant::now();
    for i in 0.. {
        let due = due(i);
        if due.unwrap_or_else(Instant::now) >= end {
            break;
        }
        // A request held back by a slow answer counts from when it was
        // due (it waited as long as a user would have); one the timer
        // sent a moment late, from when it went (that wait is ours).
        let counted_from = match due {
            Some(due) if free_since > due => {
                if free_since - due > Duration::from_millis(1) {
                    seen.late += 1;
                }
                due
            }
            Some(due) => {
                tokio::time::sleep_until(due.into()).await;
                Instant::now()
            }
            None => Instant::now(),
        };
        let mut docs = Vec::with_capacity(batch);
        let mut expect = Vec::with_capacity(batch);
        for _ in 0..batch {
            state = stored(state);
            let (fp, mode, id, own_id) = match asked {
                Asked::Query { n } => {
                    let (fp, id) = query(n, state);
                    (fp, "query", id, None)
                }
                Asked::Insert { ids } => (state, "insert", None, ids.then(|| stored(state))),
            };
            docs.push(match own_id {
                Some(own) => {
                    format!(r#"{{"fingerprint":"{fp:016x}","mode":"{mode}","id":"d{own}"}}"#)
                }
                None => format!(r#"{{"fingerprint":"{fp:016x}","mode":"{mode}"}}"#),
            });
            expect.push(id);
        }
        let body = match batch {
            1 => docs.concat(),
            _ => format!(r#"{{"documents":[{}]}}"#, docs.join(",")),
        };
        let request = hyper::Request::post(path)
            .header("host", &address)
            .header("content-type", "application/json")
            .body(http_body_util::Full::new(hyper::body::Bytes::from(body)));
        let answer = match request {
            Ok(request) => answer(&mut sender, request).await,
            Err(e) => Err(e.to_string()),
        };
        free_since = Instant::now();
        seen.latencies_ms
            .push((free_since - counted_from).as_secs_f64() * 1e3);
        let results = match answer {
            Ok(body) if batch == 1 => vec![body],
            Ok(body) => body["results"].as_array().cloned().unwrap_or_default(),
            Err(e) => {
                seen.failures.push(e);
                if sender.is_closed() {
                    break;
                }
                continue;
            }
        };
        let found = results.len() == batch
            && results
                .iter()
                .zip(&expect)
                .all(|(r, want)| match (asked, want) {
                    (_, Some(id)) => r["duplicates"]
                        .as_array()
                        .is_some_and(|d| d.iter().any(|d| d["id"] == *id)),
                    (Asked::Insert { .. }, None) => r["inserted"] == true,
                    (Asked::Query { .. }, None) => true,
                });
        if !found {
            seen.failures.push(
                "a stored fingerprint not found, an insert not stored, or too few results".into(),
            );
        }
    }
    seen
}

/// Sends `request`; its answer's body as JSON, or why there is none.
async fn answer(
    sender: &mut hyper::client::conn::http1::SendRequest<http_body_util::Full<hyper::body::Bytes>>,
    request: hyper::Request<http_body_util::Full<hyper::body::Bytes>>,
) -> Result<Value, String> {
    use http_body_util::BodyExt;
    let response = sender
        .send_request(request)
        .await
        .map_err(|e| e.to_string())?;
    let status = response.status();
    let bytes = response
        .into_body()
        .collect()
        .await
        .map_err(|e| e.to_string())?
        .to_bytes();
    if !status.is_success() {
        return Err(format!("status {status}"));
    }
    serde_json::from_slice(&bytes).map_err(|e| e.to_string())
}
