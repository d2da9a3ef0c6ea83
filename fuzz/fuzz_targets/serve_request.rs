#![no_main]
//! `neardup serve`'s requests, coverage-guided: any route, method, token
//! and body, sent to the service's routes in process, over a real store
//! that keeps the texts (so that inserts are verified). No answer may be a
//! server error, every refusal is the JSON error the API promises, and the
//! service answers `/healthz` after each request.
//!
//! The input's first byte picks the route (low four bits) and the token
//! (next two bits: right, missing, or the bytes up to the first NUL as the
//! header); for routes with an id, the id is the bytes up to the next NUL;
//! the rest is the body. `fuzz/dicts/serve_request.dict` gives the fuzzer
//! the API's words.

use std::sync::OnceLock;

use axum::body::Body;
use axum::http::{Method, Request, Response, StatusCode, header};
use libfuzzer_sys::fuzz_target;
use neardup_dedup::Rule;
use neardup_server::{Limits, ServeOptions, Service, Token};
use neardup_store::{Store, StoreOptions, StoreSettings};
use tower::ServiceExt;

const TOKEN: &str = "Zm9vYmFyYmF6cXV4cXV1eA==";

struct Fixture {
    runtime: tokio::runtime::Runtime,
    service: Service<u64>,
    _dir: tempfile::TempDir,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        // Every commit syncs: a store in memory keeps the fuzzer fast.
        let parent = if std::path::Path::new("/dev/shm").is_dir() {
            std::path::PathBuf::from("/dev/shm")
        } else {
            std::env::temp_dir()
        };
        let dir = tempfile::Builder::new()
            .prefix("neardup-fuzz-serve")
            .tempdir_in(parent)
            .expect("a temporary directory");
        let settings = StoreSettings::builder(6).texts(true).build();
        let store = Store::<u64>::open(dir.path(), Some(&settings), StoreOptions::default())
            .expect("a new store");
        let options = ServeOptions {
            token: Some(Token::new(TOKEN).expect("a token")),
            limits: Limits {
                max_body_bytes: 64 << 10,
                max_batch: 8,
                max_text_bytes: 8 << 10,
                ..Limits::default()
            },
            compact_after: None,
            ..ServeOptions::new("127.0.0.1:0".parse().expect("an address"))
        };
        let mut rule = Rule::new().expect("the default rule");
        rule.k(3);
        let service = Service::new(store, rule, &options).expect("the service");
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        Fixture {
            runtime,
            service,
            _dir: dir,
        }
    })
}

/// Takes the bytes of `data` up to the first NUL (all of them if none).
fn field<'a>(data: &mut &'a [u8]) -> &'a [u8] {
    let end = data.iter().position(|&b| b == 0).unwrap_or(data.len());
    let taken = &data[..end];
    *data = data.get(end + 1..).unwrap_or(&[]);
    taken
}

/// `bytes` as one path segment: unreserved characters as they are, the
/// rest percent-encoded.
fn segment(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|&b| {
            if b.is_ascii_alphanumeric() || b"-._~:".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

fn send(request: Request<Body>) -> (StatusCode, Vec<u8>) {
    let fixture = fixture();
    fixture.runtime.block_on(async {
        let response: Response<Body> = fixture
            .service
            .router()
            .oneshot(request)
            .await
            .expect("a router never fails");
        let status = response.status();
        let body = axum::body::to_bytes(response.into_body(), 64 << 20)
            .await
            .expect("a body");
        (status, body.to_vec())
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&first, mut rest)) = data.split_first() else {
        return;
    };
    let token = match (first >> 4) & 3 {
        1 => None,
        2 => Some(field(&mut rest).to_vec()),
        _ => Some(format!("Bearer {TOKEN}").into_bytes()),
    };
    let (method, path) = match first & 15 {
        1 => (Method::POST, "/v1/documents:batch".to_string()),
        2 => (Method::GET, format!("/v1/documents/{}", segment(field(&mut rest)))),
        3 => (Method::DELETE, format!("/v1/documents/{}", segment(field(&mut rest)))),
        4 => (Method::GET, "/v1/stats".to_string()),
        5 => (Method::GET, "/metrics".to_string()),
        6 => (Method::GET, "/healthz".to_string()),
        7 => (Method::GET, "/readyz".to_string()),
        8 => (Method::GET, "/openapi.json".to_string()),
        9 => (Method::PUT, format!("/v1/documents/{}", segment(field(&mut rest)))),
        10 => (Method::GET, "/v1/documents".to_string()),
        11 => (Method::POST, format!("/{}", segment(field(&mut rest)))),
        _ => (Method::POST, "/v1/documents".to_string()),
    };
    let mut request = Request::builder().method(method).uri(&path);
    if let Some(token) = token {
        let Ok(value) = header::HeaderValue::from_bytes(&token) else {
            return; // not a header a client could send
        };
        request = request.header(header::AUTHORIZATION, value);
    }
    let request = request
        .body(Body::from(rest.to_vec()))
        .expect("a request of a valid path and header");
    let (status, body) = send(request);
    assert!(
        !status.is_server_error() || status == StatusCode::SERVICE_UNAVAILABLE,
        "{status} for {path}: {}",
        String::from_utf8_lossy(&body)
    );
    if status.is_client_error() || status.is_server_error() {
        let answer: serde_json::Value = serde_json::from_slice(&body).unwrap_or_else(|e| {
            panic!(
                "{status} for {path} is not JSON ({e}): {}",
                String::from_utf8_lossy(&body)
            )
        });
        assert!(
            answer["error"]["code"].is_string() && answer["error"]["message"].is_string(),
            "{status} for {path}: {answer}"
        );
    }
    let health = Request::get("/healthz")
        .body(Body::empty())
        .expect("a request");
    assert_eq!(send(health).0, StatusCode::OK);
});
