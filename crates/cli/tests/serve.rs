//! `neardup serve` as a crawler meets it: over HTTP, killed at any moment,
//! and sent what an attacker sends.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::util::Dir;

/// A running `neardup serve`.
pub(crate) struct Server {
    child: Child,
    /// Its stderr, line by line (read by a thread of its own, so that a
    /// test can wait for a line with a deadline).
    lines: Receiver<String>,
    pub(crate) url: String,
    /// The lines it said that no `wait_for` was waiting for.
    pub(crate) said: String,
}

impl Server {
    /// Starts a server on a free loopback port; waits for its line saying
    /// where it listens.
    pub(crate) fn start(store: &Path, extra: &[&str]) -> Server {
        let mut command = crate::util::neardup();
        command.arg("serve");
        Server::spawn(command, store, extra)
    }

    /// Starts a server as [`Server::start`] does, in a shell that first
    /// lowers the limit on open files to `files` (hard and soft).
    pub(crate) fn start_with_file_limit(store: &Path, extra: &[&str], files: u32) -> Server {
        let mut command = Command::new("sh");
        command.args([
            "-c",
            &format!("ulimit -n {files} && exec \"$0\" \"$@\""),
            env!("CARGO_BIN_EXE_neardup"),
            "serve",
        ]);
        Server::spawn(command, store, extra)
    }

    fn spawn(mut command: Command, store: &Path, extra: &[&str]) -> Server {
        let mut child = command
            .arg("--index")
            .arg(store)
            .args(["--listen", "127.0.0.1:0"])
            .args(extra)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("neardup runs");
        let stderr = BufReader::new(child.stderr.take().expect("stderr"));
        let (sender, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in stderr.lines().map_while(Result::ok) {
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        let mut server = Server {
            child,
            lines,
            url: String::new(),
            said: String::new(),
        };
        let line = server.wait_for("on http://");
        server.url = line
            .split("on http://")
            .nth(1)
            .map(|a| format!("http://{}", a.trim()))
            .unwrap_or_else(|| panic!("no address in {line:?}"));
        server
    }

    /// The first line it says (from now) that contains `what`, within 60
    /// seconds; the lines before it are kept in `said`.
    pub(crate) fn wait_for(&mut self, what: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) if line.contains(what) => return line,
                Ok(line) => self.said += &(line + "\n"),
                Err(RecvTimeoutError::Timeout) => {
                    panic!("no {what:?} within 60 s; it said: {}", self.said)
                }
                Err(RecvTimeoutError::Disconnected) => {
                    panic!("it ended before saying {what:?}; it said: {}", self.said)
                }
            }
        }
    }

    /// Sends SIGHUP: the token file is read again.
    pub(crate) fn hangup(&self) {
        let pid = self.child.id().to_string();
        let sent = Command::new("kill").args(["-HUP", &pid]).status();
        assert!(sent.expect("kill runs").success());
    }

    /// Kills the server with SIGKILL: no chance to finish anything.
    fn kill(mut self) {
        self.child.kill().expect("killed");
        self.child.wait().expect("reaped");
    }

    /// Its process id.
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Stops the server with SIGTERM, which it must answer by closing the
    /// store and exiting with 0 (a process ended by the signal's default
    /// action leaves its store to be repaired); its last lines.
    pub(crate) fn terminate(self) -> String {
        let pid = self.child.id().to_string();
        Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .expect("kill runs");
        let (code, said) = self.wait();
        assert_eq!(code, Some(0), "SIGTERM did not end it cleanly: {said}");
        said
    }

    /// Waits for the server to exit; its exit code and last lines.
    pub(crate) fn wait(mut self) -> (Option<i32>, String) {
        let status = self.child.wait().expect("exits");
        let rest: Vec<String> = self.lines.iter().collect();
        (status.code(), rest.join("\n"))
    }
}

/// A test that fails while its server runs leaves no server behind.
impl Drop for Server {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

pub(crate) fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(20)))
        .build()
        .into()
}

/// A request's status and JSON body.
pub(crate) fn call(request: Result<ureq::http::Response<ureq::Body>, ureq::Error>) -> (u16, Value) {
    let mut response = request.expect("an answer");
    let status = response.status().as_u16();
    let text = response.body_mut().read_to_string().unwrap_or_default();
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

pub(crate) fn documents(agent: &ureq::Agent, url: &str, token: Option<&str>) -> u64 {
    let mut request = agent.get(format!("{url}/v1/stats"));
    if let Some(token) = token {
        request = request.header("Authorization", format!("Bearer {token}"));
    }
    let (status, body) = call(request.call());
    assert_eq!(status, 200, "{body}");
    body["documents"].as_u64().expect("a count")
}

#[test]
fn a_crawler_stores_pages_once_and_the_service_stops_cleanly_on_sigterm() {
    let dir = Dir::new();
    let store = dir.path("store");
    let server = Server::start(&store, &["--store-text", "--threshold", "0.8"]);
    let agent = agent();
    let url = server.url.clone();
    let page = "the river rose in the night and the town woke to water in every street and square";
    let post = |body: Value| call(agent.post(format!("{url}/v1/documents")).send_json(body));
    let (status, first) = post(json!({"id": "p1", "text": page, "metadata": {"url": "a"}}));
    assert_eq!((status, &first["inserted"]), (201, &json!(true)), "{first}");
    // The same page again, one character changed: found, not stored.
    let (status, again) = post(json!({"id": "p2", "text": format!("{page}!")}));
    assert_eq!(
        (status, &again["inserted"]),
        (200, &json!(false)),
        "{again}"
    );
    assert_eq!(again["duplicates"][0]["id"], "p1");
    assert!(
        again["duplicates"][0]["similarity"].as_f64().unwrap() >= 0.8,
        "{again}"
    );
    assert!(
        again["verified"].as_str().unwrap().contains("Jaccard"),
        "{again}"
    );
    // A taken id is a conflict, not an overwrite.
    let (status, taken) =
        post(json!({"id": "p1", "text": "another page entirely", "mode": "insert"}));
    assert_eq!(
        (status, &taken["error"]["code"]),
        (409, &json!("id_taken")),
        "{taken}"
    );
    let (status, got) = call(agent.get(format!("{url}/v1/documents/p1")).call());
    assert_eq!(
        (status, &got["text"], &got["metadata"]["url"]),
        (200, &json!(page), &json!("a"))
    );
    let (status, batch) = call(agent.post(format!("{url}/v1/documents:batch")).send_json(json!({
        "mode": "insert_if_unique",
        "documents": [{"id": "b1", "text": "bread and butter"}, {"id": "b2", "text": page, "mode": "query"}]
    })));
    assert_eq!(status, 200, "{batch}");
    assert_eq!(batch["results"][0]["inserted"], true);
    assert_eq!(batch["results"][1]["duplicates"][0]["id"], "p1");
    let (status, _) = call(agent.delete(format!("{url}/v1/documents/b1")).call());
    assert_eq!(status, 200);
    let (status, gone) = call(agent.delete(format!("{url}/v1/documents/b1")).call());
    assert_eq!((status, &gone["error"]["code"]), (404, &json!("not_found")));
    let (status, metrics) = call(agent.get(format!("{url}/metrics")).call());
    assert_eq!(status, 200);
    assert!(
        metrics.as_str().unwrap().contains("neardup_documents 1"),
        "{metrics}"
    );
    // Each group commit is timed and counted by its writes.
    for counted in [
        "neardup_commit_seconds_count",
        "neardup_commit_writes_count",
    ] {
        let commits = metrics
            .as_str()
            .unwrap()
            .lines()
            .find_map(|line| line.strip_prefix(&format!("{counted} ")))
            .and_then(|n| n.parse::<u64>().ok());
        assert!(commits.is_some_and(|n| n >= 3), "{counted}: {metrics}");
    }
    let (status, openapi) = call(agent.get(format!("{url}/openapi.json")).call());
    assert_eq!((status, &openapi["openapi"]), (200, &json!("3.1.0")));
    // Readers beside the running service: neither waits, and they see
    // what it acknowledged; a second writer is refused, naming the lock.
    let stats = dir.run(&["index", "stats", "--index", "store"], b"");
    assert_eq!(stats.code(), 0, "{}", stats.stderr());
    assert!(
        stats.stdout().contains("\"fingerprints\":1"),
        "{}",
        stats.stdout()
    );
    let fingerprint = first["fingerprint"].as_str().unwrap();
    dir.write(
        "q.jsonl",
        format!("{{\"id\":\"q\",\"fingerprint\":\"{fingerprint}\"}}\n"),
    );
    let query = dir.run(&["index", "query", "q.jsonl", "--index", "store"], b"");
    assert_eq!(query.code(), 0, "{}", query.stderr());
    assert!(query.stdout().contains("\"p1\""), "{}", query.stdout());
    let second = dir.run(&["index", "add", "q.jsonl", "--index", "store"], b"");
    assert_eq!(second.code(), 2);
    assert!(
        second.stderr().contains("another neardup"),
        "{}",
        second.stderr()
    );

    let said = server.terminate();
    assert!(said.contains("stopped"), "{said}");
    // Opened again with other fingerprint settings: refused, saying why.
    let other = dir.run(
        &[
            "serve",
            "--index",
            store.to_str().unwrap(),
            "--profile",
            "en",
        ],
        b"",
    );
    assert_eq!(other.code(), 2);
    assert!(
        other.stderr().contains("other settings"),
        "{}",
        other.stderr()
    );
    let server = Server::start(&store, &["--store-text", "--threshold", "0.8"]);
    assert_eq!(documents(&agent, &server.url, None), 1);
    server.kill();
}

#[test]
fn what_an_attacker_sends_is_refused_and_changes_nothing() {
    let dir = Dir::new();
    let store = dir.path("store");
    // Beyond loopback, a token is required before anything starts.
    let open = dir.run(
        &[
            "serve",
            "--index",
            store.to_str().unwrap(),
            "--listen",
            "0.0.0.0:0",
        ],
        b"",
    );
    assert_eq!(open.code(), 2);
    assert!(open.stderr().contains("--token-file"), "{}", open.stderr());
    let token = crate::serve_token::token_file(&dir, "token", "s3cret-token-0123\n", 0o600);
    let server = Server::start(
        &store,
        &[
            "--token-file",
            token.to_str().unwrap(),
            "--max-body-bytes",
            "2000",
            "--max-text-bytes",
            "500",
            "--max-batch",
            "3",
        ],
    );
    let (agent, url) = (agent(), server.url.clone());
    let auth = "Bearer s3cret-token-0123";
    let post = |path: &str, body: &str, auth: Option<&str>| {
        let mut request = agent
            .post(format!("{url}{path}"))
            .header("content-type", "application/json");
        if let Some(auth) = auth {
            request = request.header("Authorization", auth);
        }
        call(request.send(body))
    };
    let doc = r#"{"id": "a", "text": "a page of text"}"#;
    for (who, sent, want) in [
        ("no token", None, 401),
        ("a wrong token", Some("Bearer s3cret-token-0124"), 401),
        ("a token cut short", Some("Bearer s3cret-token-012"), 401),
        ("not bearer", Some("Basic s3cret-token-0123"), 401),
    ] {
        let (status, body) = post("/v1/documents", doc, sent);
        assert_eq!(status, want, "{who}: {body}");
        assert_eq!(body["error"]["code"], "unauthorized", "{who}");
    }
    let big_text = format!(r#"{{"text": "{}"}}"#, "word ".repeat(200));
    let big_batch =
        json!({"documents": [{"text": "a"}, {"text": "b"}, {"text": "c"}, {"text": "d"}]})
            .to_string();
    let big_body = format!(r#"{{"text": "{}"}}"#, "x".repeat(5000));
    for (what, body, want, code) in [
        (
            "a body past --max-body-bytes",
            big_body.as_str(),
            413,
            "body_too_large",
        ),
        (
            "a text past --max-text-bytes",
            big_text.as_str(),
            413,
            "text_too_long",
        ),
        (
            "malformed JSON",
            r#"{"id": "a", "text": "#,
            400,
            "bad_request",
        ),
        (
            "an unknown field",
            r#"{"id": "a", "txt": "a"}"#,
            400,
            "bad_request",
        ),
        (
            "neither text nor fingerprint",
            r#"{"id": "a"}"#,
            400,
            "bad_request",
        ),
        (
            "a bad fingerprint",
            r#"{"fingerprint": "xyz"}"#,
            400,
            "bad_request",
        ),
        (
            "a k past the store's",
            r#"{"text": "a", "k": 60}"#,
            400,
            "bad_request",
        ),
        ("not JSON at all", "\u{0}\u{1}binary", 400, "bad_request"),
    ] {
        let path = "/v1/documents";
        let (status, body) = post(path, body, Some(auth));
        assert_eq!(
            (status, body["error"]["code"].as_str()),
            (want, Some(code)),
            "{what}: {body}"
        );
        assert!(
            !body["error"]["message"].as_str().unwrap_or("").is_empty(),
            "{what}"
        );
    }
    let (status, body) = post("/v1/documents:batch", &big_batch, Some(auth));
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (413, Some("batch_too_large")),
        "{body}"
    );
    assert_eq!(
        documents(&agent, &url, Some("s3cret-token-0123")),
        0,
        "nothing refused was stored"
    );
    // A route asked with another method: a JSON error too, with Allow.
    let wrong = agent
        .put(format!("{url}/v1/documents/a"))
        .header("Authorization", auth)
        .send("{}");
    let allow = wrong
        .as_ref()
        .ok()
        .and_then(|r| r.headers().get("allow").cloned());
    let (status, body) = call(wrong);
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (405, Some("method_not_allowed")),
        "{body}"
    );
    assert!(allow.is_some_and(|a| a.to_str().unwrap_or("").contains("GET")));
    // Health answers anyone; the rest only with the token.
    assert_eq!(call(agent.get(format!("{url}/healthz")).call()).0, 200);
    assert_eq!(call(agent.get(format!("{url}/readyz")).call()).0, 200);
    assert_eq!(call(agent.get(format!("{url}/metrics")).call()).0, 401);
    let (status, body) = post("/v1/documents", doc, Some(auth));
    assert_eq!(status, 201, "{body}");
    assert_eq!(documents(&agent, &url, Some("s3cret-token-0123")), 1);
    server.kill();
}

/// Crash safety: inserts from several clients, the server killed with
/// SIGKILL at a random moment, restarted; every insert it acknowledged must
/// be there, found by its fingerprint. `NEARDUP_CRASH_TRIALS` sets the
/// number of trials (bench/serve-crash.sh runs 1,000).
#[test]
fn no_acknowledged_insert_is_lost_to_sigkill() {
    let trials: u64 = std::env::var("NEARDUP_CRASH_TRIALS")
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(100);
    let dir = Dir::new();
    let store = dir.path("store");
    // Small flushes, so that kills land in flushes and merges too.
    let flags = ["--flush-at", "40"];
    let mut server = Server::start(&store, &flags);
    let mut acknowledged: Vec<(String, String)> = Vec::new();
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for trial in 0..trials {
        let url = server.url.clone();
        let acked = Arc::new(Mutex::new(Vec::new()));
        let clients: Vec<_> = (0..4)
            .map(|c| {
                let (url, acked) = (url.clone(), acked.clone());
                let mut state = next();
                std::thread::spawn(move || {
                    let agent = agent();
                    for n in 0.. {
                        state = state
                            .wrapping_mul(6_364_136_223_846_793_005)
                            .wrapping_add(1);
                        let (id, fp) = (format!("t{trial}-c{c}-{n}"), format!("{state:016x}"));
                        let body = json!({"id": id, "fingerprint": fp, "mode": "insert"});
                        match agent.post(format!("{url}/v1/documents")).send_json(body) {
                            Ok(r) if r.status() == 201 => acked.lock().unwrap().push((id, fp)),
                            Ok(r) => panic!("{id}: status {}", r.status()),
                            Err(_) => return,
                        }
                    }
                })
            })
            .collect();
        std::thread::sleep(Duration::from_millis(20 + next() % 130));
        server.kill();
        for client in clients {
            client.join().expect("a client");
        }
        let new = acked.lock().unwrap().drain(..).collect::<Vec<_>>();
        server = Server::start(&store, &flags);
        // This trial's inserts, and a sample of the earlier ones (all of
        // them are checked at the end).
        let mut sample: Vec<(String, String)> = (0..500.min(acknowledged.len()))
            .map(|_| acknowledged[(next() % acknowledged.len() as u64) as usize].clone())
            .collect();
        sample.extend(new.iter().cloned());
        check_all_there(&server.url, &sample, acknowledged.len() + new.len(), trial);
        acknowledged.extend(new);
    }
    check_all_there(&server.url, &acknowledged, acknowledged.len(), trials);
    eprintln!(
        "{trials} trials: {} inserts acknowledged, none lost",
        acknowledged.len()
    );
    assert!(
        acknowledged.len() as u64 > trials,
        "the clients were acknowledged too little to test"
    );
    server.kill();
}

/// Every `(id, fingerprint)` of `acknowledged` is stored and found by its
/// fingerprint, and the store holds at least `total` documents.
fn check_all_there(url: &str, acknowledged: &[(String, String)], total: usize, trial: u64) {
    let agent = agent();
    let stored = documents(&agent, url, None);
    assert!(
        stored >= total as u64,
        "trial {trial}: {stored} stored, {total} acknowledged (of which {} checked)",
        acknowledged.len()
    );
    for chunk in acknowledged.chunks(1000) {
        let queries: Vec<Value> = chunk
            .iter()
            .map(|(_, fp)| json!({"fingerprint": fp, "k": 0}))
            .collect();
        let (status, body) = call(
            agent
                .post(format!("{url}/v1/documents:batch"))
                .send_json(json!({"mode": "query", "documents": queries})),
        );
        assert_eq!(status, 200, "{body}");
        for ((id, _), result) in chunk
            .iter()
            .zip(body["results"].as_array().expect("results"))
        {
            let found = result["duplicates"]
                .as_array()
                .expect("duplicates")
                .iter()
                .any(|d| d["id"] == *id);
            assert!(found, "trial {trial}: acknowledged {id} is lost: {result}");
        }
    }
}

/// Request decoding, fuzzed: thousands of bodies made by cutting, flipping
/// and splicing valid ones (and some deep nesting) get a JSON answer of
/// 2xx or 4xx, never a 5xx or a dead server, and the server still serves.
#[test]
fn mangled_bodies_never_crash_the_server() {
    let dir = Dir::new();
    let server = Server::start(
        &dir.path("store"),
        &["--store-text", "--max-body-bytes", "100000"],
    );
    let (agent, url) = (agent(), server.url.clone());
    let valid = [
        r#"{"id": "a", "text": "the river rose in the night", "metadata": {"u": [1, 2.5, null]}}"#,
        r#"{"fingerprint": "c74216238071cc02", "mode": "query", "k": 2}"#,
        r#"{"documents": [{"text": "x"}, {"fingerprint": "00000000000000ff", "mode": "insert"}], "mode": "insert_if_unique"}"#,
        r#"{"text": "\u00e9\ud83d\ude00 \\" , "id": "\u0000"}"#,
    ];
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut statuses = std::collections::BTreeMap::new();
    for round in 0..3000 {
        let mut body = valid[(next() % valid.len() as u64) as usize]
            .as_bytes()
            .to_vec();
        for _ in 0..1 + next() % 4 {
            let at = (next() % (body.len() as u64 + 1)) as usize;
            match next() % 5 {
                0 => body.truncate(at),
                1 if at < body.len() => body[at] ^= 1 << (next() % 8),
                2 => body.insert(at, (next() % 256) as u8),
                3 => {
                    let other = valid[(next() % valid.len() as u64) as usize].as_bytes();
                    let from = (next() % other.len() as u64) as usize;
                    body.splice(at..at, other[from..].iter().copied());
                }
                _ => {
                    let deep = b"[[[[{\"a\":"
                        .iter()
                        .copied()
                        .cycle()
                        .take(9 * (next() % 200) as usize);
                    body.splice(at..at, deep);
                }
            }
        }
        let path = if round % 2 == 0 {
            "/v1/documents"
        } else {
            "/v1/documents:batch"
        };
        let (status, answer) = call(
            agent
                .post(format!("{url}{path}"))
                .header("content-type", "application/json")
                .send(&body[..]),
        );
        assert!(
            matches!(status, 200 | 201 | 400 | 409 | 413),
            "{status} for {:?}: {answer}",
            String::from_utf8_lossy(&body)
        );
        if status >= 400 {
            assert!(answer["error"]["message"].is_string(), "{status}: {answer}");
        }
        *statuses.entry(status).or_insert(0) += 1;
    }
    assert!(
        statuses.get(&400).copied().unwrap_or(0) > 100,
        "{statuses:?}"
    );
    assert_eq!(call(agent.get(format!("{url}/healthz")).call()).0, 200);
    let (status, _) = call(
        agent
            .post(format!("{url}/v1/documents"))
            .send_json(json!({"text": "still here"})),
    );
    assert_eq!(status, 201);
    server.kill();
}
