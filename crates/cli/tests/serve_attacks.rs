//! `neardup serve` against slow, hostile and careless clients: stalled
//! bodies, heads never finished, more connections than it keeps, a client
//! stalled through SIGTERM, long and odd ids, starts that must be refused.
//! Throughout, `/healthz` answers within 100 ms and no acknowledged write
//! is lost.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::serve::{Server, agent, call, documents};
use crate::util::Dir;

/// Opens a connection to the server at `url` (`http://host:port`).
fn connect(url: &str) -> TcpStream {
    let address = url.trim_start_matches("http://");
    let stream = TcpStream::connect(address).expect("connects");
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .expect("a timeout");
    stream
}

/// Connections that send a head announcing a body, and no body.
fn stalled_bodies(url: &str, n: usize) -> Vec<TcpStream> {
    (0..n)
        .map(|_| {
            let mut s = connect(url);
            s.write_all(
                b"POST /v1/documents HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"te",
            )
            .expect("sent");
            s
        })
        .collect()
}

/// Connections that send half a head.
fn partial_heads(url: &str, n: usize) -> Vec<TcpStream> {
    (0..n)
        .map(|_| {
            let mut s = connect(url);
            s.write_all(b"GET /v1/stats HTTP/1.1\r\nHo").expect("sent");
            s
        })
        .collect()
}

/// Probes `/healthz` until `stop`, each probe's time or failure. Probes
/// take turns: on a new connection, as a liveness probe does, and on one
/// kept alive between probes, as a client's pool does (at the cap, the
/// kept-alive connection idle between probes must not be the one closed).
fn probe(url: String, stop: Arc<AtomicBool>) -> std::thread::JoinHandle<Vec<Result<f64, String>>> {
    std::thread::spawn(move || {
        let kept_alive = agent();
        let mut times = Vec::new();
        for turn in 0.. {
            if stop.load(Ordering::Relaxed) {
                break;
            }
            let started = Instant::now();
            let answer = if turn % 2 == 0 {
                kept_alive.get(format!("{url}/healthz")).call()
            } else {
                agent().get(format!("{url}/healthz")).call()
            };
            times.push(match answer {
                // The body read to its end, so that the kept-alive
                // connection goes back to its pool.
                Ok(mut r) => match (r.status().as_u16(), r.body_mut().read_to_string()) {
                    (200, Ok(_)) => Ok(started.elapsed().as_secs_f64()),
                    (status, body) => Err(format!("probe {turn}: {status} {body:?}")),
                },
                Err(e) => Err(format!("probe {turn}: {e}")),
            });
            std::thread::sleep(Duration::from_millis(20));
        }
        times
    })
}

fn p99(times: &[f64]) -> f64 {
    let mut sorted = times.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[(sorted.len() * 99 / 100).min(sorted.len() - 1)]
}

fn metric(url: &str, name: &str) -> f64 {
    let (status, text) = call(agent().get(format!("{url}/metrics")).call());
    assert_eq!(status, 200);
    let text = text.as_str().unwrap_or_default().to_string();
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.trim().parse().ok())
        .unwrap_or_else(|| panic!("no {name} in {text}"))
}

/// Stalled bodies past `--max-concurrent` and unfinished heads past
/// `--max-connections`: probes and queries are answered throughout; the
/// stalled are answered 408 or closed when their time is up.
#[test]
fn stalled_bodies_and_unfinished_heads_starve_no_one() {
    let dir = Dir::new();
    let server = Server::start(
        &dir.path("store"),
        &[
            "--max-concurrent",
            "16",
            "--max-connections",
            "128",
            "--header-timeout",
            "4",
            "--body-timeout",
            "4",
        ],
    );
    let url = server.url.clone();
    let agent = agent();
    let query = || {
        let body = json!({"fingerprint": "0123456789abcdef", "mode": "query"});
        call(agent.post(format!("{url}/v1/documents")).send_json(body)).0
    };
    assert_eq!(query(), 200);
    let stop = Arc::new(AtomicBool::new(false));
    let probes = probe(url.clone(), stop.clone());
    // 100 stalled bodies: far more than the 16 requests worked on at once.
    let mut bodies = stalled_bodies(&url, 100);
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(query(), 200, "a query with stalled bodies in flight");
    // 200 unfinished heads on top: past the cap of 128 connections, the
    // stalest make room.
    let heads = partial_heads(&url, 200);
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(query(), 200, "a query past the connection cap");
    assert!(metric(&url, "neardup_connections_evicted_total") > 0.0);
    assert!(metric(&url, "neardup_connections") <= 128.0);
    // When their time is up, the stalled bodies still open are answered
    // 408 with a JSON error, and the connection is closed.
    std::thread::sleep(Duration::from_secs(5));
    let mut answered = 0;
    for s in bodies.iter_mut() {
        let mut text = String::new();
        if s.read_to_string(&mut text).is_ok() && text.starts_with("HTTP/1.1 408") {
            assert!(text.contains("\"body_timeout\""), "{text}");
            assert!(text.to_lowercase().contains("connection: close"), "{text}");
            answered += 1;
        }
    }
    assert!(answered > 0, "no stalled body got its 408");
    assert_eq!(query(), 200);
    stop.store(true, Ordering::Relaxed);
    let times = probes.join().expect("the prober ends");
    let failed: Vec<_> = times.iter().filter_map(|t| t.as_ref().err()).collect();
    assert!(failed.is_empty(), "probes failed: {failed:?}");
    let times: Vec<f64> = times.into_iter().flatten().collect();
    assert!(times.len() > 50, "{} probes", times.len());
    assert!(p99(&times) < 0.1, "healthz p99 {} s", p99(&times));
    assert!(metric(&url, "neardup_connections_timed_out_total{phase=\"head\"}") > 0.0);
    drop(heads);
    server.terminate();
}

/// Under a low `ulimit -n` the cap is lowered to fit (with a warning),
/// and more unfinished heads than the process may hold files never keep
/// a probe out: accepting never runs out of file descriptors.
#[test]
fn a_low_file_limit_lowers_the_cap_and_probes_still_get_in() {
    let dir = Dir::new();
    // Few files, so that the test's own sockets stay well within its
    // limit too (tests run side by side in one process).
    let server = Server::start_with_file_limit(&dir.path("store"), &["--max-concurrent", "8"], 300);
    assert!(
        server.said.contains("--max-connections 4096 lowered to 44"),
        "{}",
        server.said
    );
    let url = server.url.clone();
    let heads = partial_heads(&url, 150);
    let stop = Arc::new(AtomicBool::new(false));
    let probes = probe(url.clone(), stop.clone());
    std::thread::sleep(Duration::from_secs(1));
    stop.store(true, Ordering::Relaxed);
    let times = probes.join().expect("the prober ends");
    assert!(times.iter().all(Result::is_ok), "{times:?}");
    assert!(metric(&url, "neardup_connections_evicted_total") > 100.0);
    assert_eq!(metric(&url, "neardup_accept_errors_total"), 0.0);
    drop(heads);
    server.terminate();
}

/// A new connection that sends nothing is closed after `--header-timeout`,
/// as is one whose head dribbles in, bytes or not; one kept alive after a
/// request has `--idle-timeout` for its next.
#[test]
fn silent_connections_and_dribbled_heads_are_closed_in_time() {
    let dir = Dir::new();
    let server = Server::start(
        &dir.path("store"),
        &["--idle-timeout", "3", "--header-timeout", "1"],
    );
    let started = Instant::now();
    let mut silent = connect(&server.url);
    let mut kept = connect(&server.url);
    kept.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        .expect("sent");
    let mut answer = [0u8; 1024];
    let read = kept.read(&mut answer).expect("an answer");
    assert!(answer[..read].starts_with(b"HTTP/1.1 200"));
    let answered = Instant::now();
    let mut dribbled = connect(&server.url);
    let mut closed_after = None;
    for byte in b"GET /healthz HTTP/1.1\r\nHost: a-host-name-that-takes-long\r\n" {
        if dribbled.write_all(&[*byte]).is_err() {
            closed_after = Some(started.elapsed());
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let closed_after = closed_after.expect("the dribbled head was cut");
    assert!(
        closed_after >= Duration::from_secs(1) && closed_after < Duration::from_secs(4),
        "{closed_after:?}"
    );
    // The silent one is closed by now, well before the idle limit: a read
    // sees the end at once.
    let mut rest = Vec::new();
    assert_eq!(
        silent.read_to_end(&mut rest).map(|_| rest.len()).ok(),
        Some(0)
    );
    assert!(started.elapsed() < Duration::from_millis(2900));
    // The kept-alive one lasts its idle limit (less the clock's 100 ms).
    assert_eq!(
        kept.read_to_end(&mut rest).map(|_| rest.len()).ok(),
        Some(0)
    );
    let idle_for = answered.elapsed();
    assert!(idle_for >= Duration::from_millis(2800), "{idle_for:?}");
    server.terminate();
}

/// An answer given before its request's body was read (a refusal: no
/// token, no such route) says `Connection: close`, and the connection
/// closes: a client that kept it for its next request would have that
/// request cut (seen in CI, as a client's "peer disconnected").
#[test]
fn an_answer_before_the_body_closes_and_says_so() {
    let dir = Dir::new();
    let token = dir.path("token");
    std::fs::write(&token, "s3cret-token-0123").expect("written");
    let server = Server::start(
        &dir.path("store"),
        &["--token-file", token.to_str().expect("a path")],
    );
    for head in [
        "POST /v1/documents HTTP/1.1\r\nHost: x\r\nContent-Length: 40\r\n\r\n",
        "POST /nowhere HTTP/1.1\r\nHost: x\r\nContent-Length: 40\r\n\r\n",
    ] {
        // The head alone: the body comes after the answer, if at all.
        let mut s = connect(&server.url);
        s.write_all(head.as_bytes()).expect("sent");
        let mut answer = String::new();
        s.read_to_string(&mut answer)
            .expect("the answer, then the end");
        let status = answer.split(' ').nth(1).unwrap_or("");
        assert!(["401", "404"].contains(&status), "{head}: {answer}");
        assert!(
            answer.to_lowercase().contains("connection: close"),
            "{head}: {answer}"
        );
    }
    // A body read whole keeps the connection for the next request.
    let body = r#"{"fingerprint": "0123456789abcdef", "mode": "query"}"#;
    let mut s = connect(&server.url);
    let request = format!(
        "POST /v1/documents HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer s3cret-token-0123\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    s.write_all(request.as_bytes()).expect("sent");
    let mut answer = [0u8; 1024];
    let read = s.read(&mut answer).expect("an answer");
    let answer = String::from_utf8_lossy(&answer[..read]).to_lowercase();
    assert!(answer.starts_with("http/1.1 200"), "{answer}");
    assert!(!answer.contains("connection: close"), "{answer}");
    server.terminate();
}

/// SIGTERM while writers write and a client stalls its body: `/readyz`
/// answers 503, the service exits within `--shutdown-timeout`, and every
/// insert it acknowledged is there after a restart.
#[test]
fn sigterm_with_a_stalled_client_exits_in_time_and_loses_nothing() {
    let dir = Dir::new();
    let store = dir.path("store");
    let server = Server::start(&store, &["--shutdown-timeout", "2"]);
    let url = server.url.clone();
    let acknowledged = Arc::new(Mutex::new(Vec::new()));
    let writers: Vec<_> = (0..4)
        .map(|w| {
            let (url, acknowledged) = (url.clone(), acknowledged.clone());
            std::thread::spawn(move || {
                let agent = agent();
                for i in 0u64.. {
                    let id = format!("w{w}-{i}");
                    let fp = format!(
                        "{:016x}",
                        (w * 1_000_003 + i).wrapping_mul(0x9e37_79b9_7f4a_7c15)
                    );
                    let body = json!({"id": id, "fingerprint": fp, "mode": "insert"});
                    match agent.post(format!("{url}/v1/documents")).send_json(body) {
                        Ok(r) if r.status() == 201 => acknowledged.lock().unwrap().push(id),
                        _ => return,
                    }
                }
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(500));
    let _stalled = stalled_bodies(&url, 1);
    std::thread::sleep(Duration::from_millis(200));
    let signalled = Instant::now();
    let pid = server.pid().to_string();
    std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .expect("kill runs");
    std::thread::sleep(Duration::from_millis(200));
    let (status, ready) = call(agent().get(format!("{url}/readyz")).call());
    assert_eq!(
        (status, &ready["error"]["code"]),
        (503, &json!("not_ready"))
    );
    let (code, said) = server.wait();
    let took = signalled.elapsed();
    assert_eq!(code, Some(0), "{said}");
    assert!(
        took < Duration::from_millis(3500),
        "exit {took:?} after SIGTERM"
    );
    for w in writers {
        w.join().expect("a writer ends");
    }
    let acknowledged = acknowledged.lock().unwrap().clone();
    assert!(acknowledged.len() > 20, "{} inserts", acknowledged.len());
    let server = Server::start(&store, &[]);
    let agent = agent();
    for id in &acknowledged {
        let (status, _) = call(
            agent
                .get(format!("{}/v1/documents/{id}", server.url))
                .call(),
        );
        assert_eq!(status, 200, "acknowledged {id} lost");
    }
    server.terminate();
}

/// The files of `dir`: name, size and modification time of each.
fn files(dir: &std::path::Path) -> Vec<(String, u64, std::time::SystemTime)> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("a directory")
        .map(|e| {
            let e = e.expect("an entry");
            let meta = e.metadata().expect("metadata");
            (
                e.file_name().to_string_lossy().into_owned(),
                meta.len(),
                meta.modified().expect("a time"),
            )
        })
        .collect();
    files.sort();
    files
}

/// A SIGTERM sent the moment the server says where it listens (as a
/// supervisor stopping a service it just started does) is a clean stop:
/// the handler is in place before the line is written.
#[test]
fn a_sigterm_right_after_the_start_is_a_clean_stop() {
    let dir = Dir::new();
    let store = dir.path("store");
    for _ in 0..20 {
        Server::start(&store, &[]).terminate();
    }
}

/// Every refused start leaves the store's directory as it was: not made
/// when it was not there, untouched when it was.
#[test]
fn a_refused_start_changes_nothing_on_disk() {
    let dir = Dir::new();
    let store = dir.path("store");
    let serve = |extra: &[&str]| {
        let mut args = vec!["serve", "--index", store.to_str().unwrap()];
        args.extend_from_slice(extra);
        dir.run(&args, b"")
    };
    let busy = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
    let busy = busy.local_addr().expect("its address").to_string();
    for (why, extra, said) in [
        (
            "beyond loopback without a token",
            vec!["--listen", "0.0.0.0:0", "-k", "4"],
            "--token-file",
        ),
        (
            "a port in use",
            vec!["--listen", busy.as_str()],
            "cannot listen",
        ),
        (
            "fewer connections than requests",
            vec!["--max-connections", "10", "--max-concurrent", "10"],
            "--max-connections",
        ),
    ] {
        let run = serve(&extra);
        assert_eq!(run.code(), 2, "{why}: {}", run.stderr());
        assert!(run.stderr().contains(said), "{why}: {}", run.stderr());
        assert!(!store.exists(), "{why}: the store was made");
    }
    // A store made, then starts refused for other settings or those above.
    let server = Server::start(&store, &["--store-text"]);
    server.terminate();
    let before = files(&store);
    std::thread::sleep(Duration::from_millis(20));
    for (why, extra) in [
        ("texts not kept", vec!["--listen", "127.0.0.1:0"]),
        (
            "another k",
            vec!["--store-text", "-k", "4", "--listen", "127.0.0.1:0"],
        ),
        (
            "beyond loopback without a token",
            vec!["--store-text", "--listen", "0.0.0.0:0"],
        ),
        (
            "a port in use",
            vec!["--store-text", "--listen", busy.as_str()],
        ),
    ] {
        let run = serve(&extra);
        assert_eq!(run.code(), 2, "{why}: {}", run.stderr());
        assert_eq!(files(&store), before, "{why}: the store changed");
    }
}

/// `id` as one path segment: unreserved characters as they are, every
/// other byte of its UTF-8 percent-encoded.
fn segment(id: &str) -> String {
    id.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// Every id an insert takes can be read and deleted back over HTTP (ids
/// of any length once were stored and then unreachable past the HTTP
/// layer's bound on a path); longer ids and paths get the API's JSON
/// errors, and only a head past 16 KiB gets the HTTP layer's empty 431.
#[test]
fn every_id_an_insert_takes_is_read_and_deleted_back() {
    let dir = Dir::new();
    let server = Server::start(&dir.path("store"), &[]);
    let (agent, url) = (agent(), server.url.clone());
    let ids = [
        "😀".repeat(256),
        "/%?# +&=".repeat(32),
        "https://example.org/a?b=c#d".to_string(),
        "100% sure".to_string(),
        "a/b".to_string(),
        "#".to_string(),
        "?".to_string(),
        ".".to_string(),
        "..".to_string(),
        " ".to_string(),
        "%2F".to_string(),
        "nul\u{0}byte".to_string(),
        "é".repeat(256),
    ];
    for (i, id) in ids.iter().enumerate() {
        let body = json!({"id": id, "fingerprint": format!("{:016x}", i + 1), "mode": "insert"});
        let (status, answer) = call(agent.post(format!("{url}/v1/documents")).send_json(body));
        assert_eq!((status, &answer["id"]), (201, &json!(id)), "{answer}");
        let path = format!("{url}/v1/documents/{}", segment(id));
        let (status, got) = call(agent.get(&path).call());
        assert_eq!((status, &got["id"]), (200, &json!(id)), "{id:?}: {got}");
        let (status, gone) = call(agent.delete(&path).call());
        assert_eq!(
            (status, &gone["deleted"]),
            (200, &json!(true)),
            "{id:?}: {gone}"
        );
        assert_eq!(call(agent.get(&path).call()).0, 404, "{id:?}");
    }
    assert_eq!(documents(&agent, &url, None), 0);
    // One character more: refused on insert, and in a path.
    let long = "😀".repeat(257);
    let body = json!({"id": long, "fingerprint": "00000000000000ff"});
    let (status, answer) = call(agent.post(format!("{url}/v1/documents")).send_json(body));
    assert_eq!(
        (status, &answer["error"]["code"]),
        (400, &json!("bad_request"))
    );
    let path = format!("{url}/v1/documents/{}", segment(&long));
    let (status, answer) = call(agent.get(&path).call());
    assert_eq!(
        (status, &answer["error"]["code"]),
        (400, &json!("bad_request"))
    );
    // Past 8 KiB, the service's 414; past the 16 KiB a head may take,
    // the HTTP layer's 431, empty.
    let path = format!("{url}/v1/documents/{}", "a".repeat(9 << 10));
    let (status, answer) = call(agent.get(&path).call());
    assert_eq!(
        (status, &answer["error"]["code"]),
        (414, &json!("uri_too_long"))
    );
    // A client of the http crate cannot send such a path: by hand.
    let address = url.trim_start_matches("http://");
    let mut stream = std::net::TcpStream::connect(address).expect("a connection");
    let request = format!(
        "GET /v1/documents/{} HTTP/1.1\r\nhost: {address}\r\nconnection: close\r\n\r\n",
        "a".repeat(70 << 10)
    );
    // Whether all of it was taken or not, the answer says.
    let _ = std::io::Write::write_all(&mut stream, request.as_bytes());
    let mut answer = String::new();
    let _ = std::io::Read::read_to_string(&mut stream, &mut answer);
    assert!(answer.starts_with("HTTP/1.1 431"), "{answer}");
    assert!(
        answer.to_ascii_lowercase().contains("content-length: 0"),
        "{answer}"
    );
    server.terminate();
}
