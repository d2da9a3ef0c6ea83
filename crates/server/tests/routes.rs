//! The service's routes called in process, on a runtime of one thread: a
//! caller of `Service::router` (a test, a fuzzer, an application that
//! mounts the routes in its own server) gets the answers `neardup serve`
//! gives over its socket, and they do what the OpenAPI document says, at
//! each point where the two could part: ids of 1 to 256 characters, the
//! bound on a request's path, `null` as a missing field, text or
//! fingerprint (one of them), `k` as JSON Schema's integer, and metadata
//! kept as sent.

use axum::body::Body;
use axum::http::{Request, StatusCode};
use neardup_dedup::Rule;
use neardup_server::{ServeOptions, Service};
use neardup_store::{Store, StoreOptions, StoreSettings};
use serde_json::{Value, json};
use tower::ServiceExt;

fn service(dir: &std::path::Path) -> Service<u64> {
    let settings = StoreSettings::builder(6).texts(true).build();
    let store = Store::<u64>::open(dir, Some(&settings), StoreOptions::default()).unwrap();
    let options = ServeOptions::builder("127.0.0.1:0".parse().unwrap())
        .compact_after(None)
        .build()
        .unwrap();
    let mut rule = Rule::new().unwrap();
    rule.k(3);
    Service::new(store, rule, &options).unwrap()
}

/// Sends a request; its status and body as bytes.
async fn raw(
    service: &Service<u64>,
    method: &str,
    path: &str,
    body: &str,
) -> (StatusCode, Vec<u8>) {
    let request = Request::builder()
        .method(method)
        .uri(path)
        .body(Body::from(body.to_string()))
        .unwrap();
    let response = service.router().oneshot(request).await.unwrap();
    let status = response.status();
    let bytes = axum::body::to_bytes(response.into_body(), 1 << 20)
        .await
        .unwrap();
    (status, bytes.to_vec())
}

/// Sends a request; its status and JSON body.
async fn send(service: &Service<u64>, method: &str, path: &str, body: &str) -> (StatusCode, Value) {
    let (status, bytes) = raw(service, method, path, body).await;
    let answer = serde_json::from_slice(&bytes)
        .unwrap_or_else(|e| panic!("{status} is not JSON ({e}): {bytes:?}"));
    (status, answer)
}

/// Runs `test` on a runtime of one thread, with a service on a new store.
fn with_service(test: impl AsyncFnOnce(&Service<u64>)) {
    let dir = tempfile::tempdir().unwrap();
    let service = service(dir.path());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(test(&service));
}

#[test]
fn texts_are_stored_and_checked_on_a_runtime_of_one_thread() {
    let dir = tempfile::tempdir().unwrap();
    let service = service(dir.path());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let page = "the river rose in the night and the town woke to water in every street";
        let (status, first) = send(
            &service,
            "POST",
            "/v1/documents",
            &json!({"id": "a", "text": page}).to_string(),
        )
        .await;
        assert_eq!(
            (status, &first["inserted"]),
            (StatusCode::CREATED, &json!(true)),
            "{first}"
        );
        let copy = json!({"id": "b", "text": format!("{page}.")}).to_string();
        let (status, second) = send(&service, "POST", "/v1/documents", &copy).await;
        assert_eq!(status, StatusCode::OK, "{second}");
        assert_eq!(
            (&second["inserted"], &second["duplicates"][0]["id"]),
            (&json!(false), &json!("a"))
        );
        let (status, wrong) = send(&service, "PUT", "/v1/documents/a", "{}").await;
        assert_eq!(
            (status, &wrong["error"]["code"]),
            (StatusCode::METHOD_NOT_ALLOWED, &json!("method_not_allowed"))
        );
        let (status, _) = send(&service, "GET", "/v1/documents/a", "").await;
        assert_eq!(status, StatusCode::OK);
        // An id that is not UTF-8: the API's JSON error, not the router's text.
        for method in ["GET", "DELETE"] {
            let (status, bad) = send(&service, method, "/v1/documents/%40%AF%40a", "").await;
            assert_eq!(
                (status, &bad["error"]["code"]),
                (StatusCode::BAD_REQUEST, &json!("bad_request")),
                "{method}: {bad}"
            );
        }
    });
    // Dropping the service lets its writer thread end.
    drop(service);
    let reopened = Store::<u64>::open(dir.path(), None, StoreOptions::default()).unwrap();
    assert_eq!(reopened.stats().documents, 1);
}

fn code(answer: &Value) -> &str {
    answer["error"]["code"].as_str().unwrap_or("")
}

#[test]
fn ids_are_1_to_256_characters_on_insert_read_and_delete() {
    with_service(async |service| {
        let longest = "😀".repeat(256);
        let body = json!({"id": longest, "fingerprint": "00000000000000ff", "mode": "insert"});
        let (status, answer) = send(service, "POST", "/v1/documents", &body.to_string()).await;
        assert_eq!(status, StatusCode::CREATED, "{answer}");
        let too_long = "😀".repeat(257);
        for (id, chars) in [(too_long.as_str(), "257"), ("", "0")] {
            let body = json!({"id": id, "fingerprint": "00000000000000fe"});
            let (status, answer) = send(service, "POST", "/v1/documents", &body.to_string()).await;
            assert_eq!(
                (status, code(&answer)),
                (StatusCode::BAD_REQUEST, "bad_request")
            );
            let message = answer["error"]["message"].as_str().unwrap();
            assert!(
                message.contains(&format!("an id of {chars} characters"))
                    && message.contains("256"),
                "{message}"
            );
        }
        // In a batch, the document is named, and nothing of the batch is stored.
        let batch = json!({"mode": "insert", "documents": [
            {"id": "fine", "fingerprint": "00000000000000f0"},
            {"id": "x".repeat(300), "fingerprint": "00000000000000f1"},
        ]});
        let (status, answer) =
            send(service, "POST", "/v1/documents:batch", &batch.to_string()).await;
        assert_eq!(
            (status, code(&answer)),
            (StatusCode::BAD_REQUEST, "bad_request")
        );
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(
            message.starts_with("documents[1]: an id of 300 characters"),
            "{message}"
        );
        let (status, _) = send(service, "GET", "/v1/documents/fine", "").await;
        assert_eq!(status, StatusCode::NOT_FOUND);
        // A longer id read or deleted: the same 400, not a 404 or the HTTP
        // layer's empty answer.
        let path = format!("/v1/documents/{}", "x".repeat(257));
        for method in ["GET", "DELETE"] {
            let (status, answer) = send(service, method, &path, "").await;
            assert_eq!(
                (status, code(&answer)),
                (StatusCode::BAD_REQUEST, "bad_request"),
                "{method}: {answer}"
            );
        }
        // Not UTF-8 once decoded: 400 too.
        let (status, answer) = send(service, "GET", "/v1/documents/%FF", "").await;
        assert_eq!(
            (status, code(&answer)),
            (StatusCode::BAD_REQUEST, "bad_request")
        );
    });
}

#[test]
fn an_id_holding_percent_signs_is_read_and_deleted_through_its_encoded_path() {
    with_service(async |service| {
        // "9%C3%A5" is the id itself, not "9å": its path encodes the '%'s.
        for (id, path) in [
            ("9%C3%A5", "/v1/documents/9%25C3%25A5"),
            ("50%", "/v1/documents/50%25"),
            ("a/b c", "/v1/documents/a%2Fb%20c"),
        ] {
            let body = json!({"id": id, "fingerprint": "00000000000000aa", "mode": "insert"});
            let (status, answer) = send(service, "POST", "/v1/documents", &body.to_string()).await;
            assert_eq!(status, StatusCode::CREATED, "{answer}");
            let (status, answer) = send(service, "GET", path, "").await;
            assert_eq!((status, answer["id"].as_str()), (StatusCode::OK, Some(id)));
            let (status, _) = send(service, "DELETE", path, "").await;
            assert_eq!(status, StatusCode::OK);
            let (status, _) = send(service, "GET", path, "").await;
            assert_eq!(status, StatusCode::NOT_FOUND);
        }
        // Decoded, the path names another id, which is not stored.
        let body = json!({"id": "9%C3%A5", "fingerprint": "00000000000000ab", "mode": "insert"});
        send(service, "POST", "/v1/documents", &body.to_string()).await;
        let (status, _) = send(service, "GET", "/v1/documents/9%C3%A5", "").await;
        assert_eq!(status, StatusCode::NOT_FOUND);
    });
}

#[test]
fn a_path_past_8_kib_is_a_json_414_on_every_route() {
    with_service(async |service| {
        for path in [
            format!("/v1/documents/{}", "a".repeat(8 << 10)),
            format!("/healthz?{}", "q".repeat(8 << 10)),
            format!("/no/such/route/{}", "z".repeat(8 << 10)),
        ] {
            let (status, answer) = send(service, "GET", &path, "").await;
            assert_eq!(
                (status, code(&answer)),
                (StatusCode::URI_TOO_LONG, "uri_too_long"),
                "{answer}"
            );
        }
        // At the bound, the route answers.
        let path = format!("/healthz?{}", "q".repeat((8 << 10) - "/healthz?".len()));
        assert_eq!(send(service, "GET", &path, "").await.0, StatusCode::OK);
    });
}

#[test]
fn null_is_a_missing_field_and_one_of_text_or_fingerprint_is_required() {
    with_service(async |service| {
        let nulls = r#"{"id": null, "text": "a text", "fingerprint": null, "metadata": null, "mode": null, "k": null}"#;
        let (status, answer) = send(service, "POST", "/v1/documents", nulls).await;
        assert_eq!(status, StatusCode::CREATED, "{answer}");
        let batch = r#"{"documents": [{"fingerprint": "0000000000000001", "text": null}], "mode": null, "k": null}"#;
        let (status, answer) = send(service, "POST", "/v1/documents:batch", batch).await;
        assert_eq!(status, StatusCode::OK, "{answer}");
        assert_eq!(answer["results"][0]["inserted"], true, "{answer}");
        for (what, body) in [
            ("nothing", "{}"),
            ("a null text", r#"{"text": null}"#),
            (
                "both",
                r#"{"text": "a", "fingerprint": "0000000000000001"}"#,
            ),
            ("a batch without documents", r#"{"mode": "query"}"#),
            ("null documents", r#"{"documents": null}"#),
        ] {
            let path = if what.contains("documents") {
                "/v1/documents:batch"
            } else {
                "/v1/documents"
            };
            let (status, answer) = send(service, "POST", path, body).await;
            assert_eq!(
                (status, code(&answer)),
                (StatusCode::BAD_REQUEST, "bad_request"),
                "{what}: {answer}"
            );
        }
    });
}

#[test]
fn k_is_any_json_integer_up_to_the_stores() {
    with_service(async |service| {
        for k in ["3", "3.0", "3e0", "0", "-0.0"] {
            let body =
                format!(r#"{{"fingerprint": "0000000000000001", "mode": "query", "k": {k}}}"#);
            let (status, answer) = send(service, "POST", "/v1/documents", &body).await;
            assert_eq!(status, StatusCode::OK, "k = {k}: {answer}");
        }
        for k in ["3.5", "-1", "4294967296", "1e10", "\"3\"", "7"] {
            let body =
                format!(r#"{{"fingerprint": "0000000000000001", "mode": "query", "k": {k}}}"#);
            let (status, answer) = send(service, "POST", "/v1/documents", &body).await;
            assert_eq!(
                (status, code(&answer)),
                (StatusCode::BAD_REQUEST, "bad_request"),
                "k = {k}: {answer}"
            );
        }
        // A batch's k past the store's, even with no document to use it.
        let (status, answer) = send(
            service,
            "POST",
            "/v1/documents:batch",
            r#"{"documents": [], "k": 7}"#,
        )
        .await;
        assert_eq!(
            (status, code(&answer)),
            (StatusCode::BAD_REQUEST, "bad_request"),
            "{answer}"
        );
    });
}

#[test]
fn metadata_comes_back_byte_for_byte_as_sent() {
    with_service(async |service| {
        let cases = [
            r#"{"big": 12345678901234567890123}"#,
            r#"{"huge": 1e400, "tiny": -1E-400}"#,
            r#"[3.141592653589793238462643383279502884197169399375105820974944592307816406286, 0.10000000000000000001]"#,
            r#""\u00e9\ud83d\ude00 \"quoted\" \/ \n""#,
            r#"{ "spaced" : [ 1 , 2 ] , "nested": {"a": [null, true, false, -0, 1.0]} }"#,
            "18446744073709551616",
            "null",
        ];
        for (i, metadata) in cases.iter().enumerate() {
            let body = format!(
                r#"{{"id": "m{i}", "fingerprint": "{:016x}", "mode": "insert", "metadata": {metadata}}}"#,
                0x1000 * (i + 1)
            );
            let (status, answer) = send(service, "POST", "/v1/documents", &body).await;
            assert_eq!(status, StatusCode::CREATED, "{metadata}: {answer}");
            let (status, got) = raw(service, "GET", &format!("/v1/documents/m{i}"), "").await;
            assert_eq!(status, StatusCode::OK);
            let got = String::from_utf8(got).unwrap();
            assert!(
                got.ends_with(&format!(r#""metadata":{metadata}}}"#)),
                "{metadata} came back as {got}"
            );
        }
        // In a batch too.
        let batch = r#"{"mode": "insert", "documents": [{"id": "b", "fingerprint": "00000000000fffff", "metadata": {"n": 98765432109876543210.5}}]}"#;
        assert_eq!(
            send(service, "POST", "/v1/documents:batch", batch).await.0,
            StatusCode::OK
        );
        let (_, got) = raw(service, "GET", "/v1/documents/b", "").await;
        let got = String::from_utf8(got).unwrap();
        assert!(
            got.ends_with(r#""metadata":{"n": 98765432109876543210.5}}"#),
            "{got}"
        );
    });
}
