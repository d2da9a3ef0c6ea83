//! The service's routes called in process, on a runtime of one thread: a
//! caller of `Service::router` (a test, a fuzzer, an application that
//! mounts the routes in its own server) gets the answers `neardup serve`
//! gives over its socket.

use axum::body::Body;
use axum::http::{Request, StatusCode};
use neardup_core::Width;
use neardup_dedup::Rule;
use neardup_server::{ServeOptions, Service};
use neardup_store::{Store, StoreOptions, StoreSettings};
use serde_json::{Value, json};
use tower::ServiceExt;

fn service(dir: &std::path::Path) -> Service<u64> {
    let settings = StoreSettings::new(Width::W64, 6, json!({}), true);
    let store = Store::<u64>::open(dir, Some(&settings), StoreOptions::default()).unwrap();
    let options = ServeOptions {
        compact_after: None,
        ..ServeOptions::new("127.0.0.1:0".parse().unwrap())
    };
    let mut rule = Rule::new().unwrap();
    rule.k(3);
    Service::new(store, rule, &options).unwrap()
}

async fn send(service: &Service<u64>, method: &str, path: &str, body: &str) -> (StatusCode, Value) {
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
    (
        status,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
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
