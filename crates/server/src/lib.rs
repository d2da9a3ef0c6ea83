//! `neardup serve`: a durable near-duplicate service over HTTP.
//!
//! A crawler or a content platform asks, for each new page, "have we seen
//! this already?" against everything stored, and stores it when it is new:
//! `POST /v1/documents` with `mode: insert_if_unique`. The answer comes once
//! the document is durable in the [`neardup_store::Store`]; concurrent
//! requests share one commit (module `commit`).
//!
//! The service is thin: documents are fingerprinted by
//! [`neardup_core::Fingerprinter`], pairs checked by
//! [`neardup_dedup::Verification`], stored and searched by the store. Here
//! are HTTP, limits and the token:
//!
//! - `api`: the bodies of requests and answers;
//! - `routes`: the handlers;
//! - `guard`: the token, the limit on requests in flight, the count of
//!   answers;
//! - `commit`: group commit;
//! - `judge`: a new or queried text compared with stored ones
//!   ([`VerifiedTexts`]);
//! - `metrics`: the counters that `/metrics` shows.
//!
//! docs/API.md describes the API; `/openapi.json` serves it ([`OPENAPI`]).
//!
//! # Example
//!
//! ```no_run
//! use neardup_core::Width;
//! use neardup_dedup::Rule;
//! use neardup_server::{Limits, ServeOptions, serve};
//! use neardup_store::{Store, StoreOptions, StoreSettings};
//!
//! // The rule of `neardup dedup`: its defaults, texts judged by it.
//! let rule = Rule::new()?;
//! let settings = StoreSettings::new(Width::W64, 8, serde_json::json!({"profile": "auto"}), true)
//!     .keyed(rule.keying().unwrap_or_default());
//! let store = Store::<u64>::open("store".as_ref(), Some(&settings), StoreOptions::default())?;
//! let options = ServeOptions {
//!     listen: "127.0.0.1:8077".parse()?,
//!     token: None,
//!     limits: Limits::default(),
//!     compact_after: None,
//! };
//! // Until SIGTERM or Ctrl-C.
//! serve(store, rule, options, |at| eprintln!("on {at}"))?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![deny(missing_docs)]

mod api;
mod commit;
mod error;
mod guard;
mod judge;
mod metrics;
mod routes;
mod uri;

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};
use neardup_dedup::Rule;
use neardup_index::Bits;
use neardup_store::Store;

use crate::commit::{Committer, SharedJudge};
use crate::metrics::Metrics;
use crate::routes::App;

pub use crate::judge::VerifiedTexts;

/// The OpenAPI document of the service, served at `/openapi.json` and
/// shown in docs/API.md.
pub const OPENAPI: &str = include_str!("openapi.json");

/// The bytes of stored texts' sketches the service keeps for its next
/// comparisons ([`VerifiedTexts`]): those of about 13,000 pages of 600
/// words (a word 3-shingle sketch is 8 bytes a shingle).
const SKETCH_CACHE_BYTES: usize = 64 << 20;

/// Limits on what one request may ask; past them, a JSON error.
///
/// ```
/// use neardup_server::Limits;
///
/// let limits = Limits { max_batch: 100, ..Limits::default() };
/// assert_eq!((limits.max_batch, limits.max_body_bytes), (100, 32 << 20));
/// ```
#[derive(Clone, Debug)]
pub struct Limits {
    /// Bytes of a request body (413 past it).
    pub max_body_bytes: usize,
    /// Documents of a batch (413 past it).
    pub max_batch: usize,
    /// Bytes of one text (413 past it).
    pub max_text_bytes: usize,
    /// Requests in flight at once (503 past it).
    pub max_concurrent: usize,
    /// Writes gathered into one commit, at most.
    pub max_commit: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_body_bytes: 32 << 20,
            max_batch: 1000,
            max_text_bytes: 4 << 20,
            max_concurrent: 256,
            max_commit: 4096,
        }
    }
}

/// How the service runs.
///
/// ```
/// use neardup_server::{Limits, ServeOptions};
///
/// let options = ServeOptions {
///     listen: "127.0.0.1:8077".parse()?,
///     token: Some("a secret".into()),
///     limits: Limits::default(),
///     compact_after: Some(std::time::Duration::from_secs(30)),
/// };
/// assert!(options.listen.ip().is_loopback());
/// # Ok::<(), std::net::AddrParseError>(())
/// ```
#[derive(Clone, Debug)]
pub struct ServeOptions {
    /// Where it listens.
    pub listen: SocketAddr,
    /// The bearer token every request but `/healthz` and `/readyz` must
    /// carry, if any. Required unless `listen` is a loopback address.
    pub token: Option<String>,
    /// The limits on requests.
    pub limits: Limits,
    /// Once no write has come for this long, every segment is merged into
    /// one, so that a query reads one segment's tables; `None`: never.
    pub compact_after: Option<Duration>,
}

/// What stops the service from starting, said for people.
///
/// ```
/// use neardup_server::StartError;
///
/// let err = StartError("cannot listen on 0.0.0.0:80".into());
/// assert_eq!(err.to_string(), "cannot listen on 0.0.0.0:80");
/// ```
#[derive(Debug)]
pub struct StartError(pub String);

impl std::fmt::Display for StartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for StartError {}

/// The service without a listener: the store, the thread that
/// group-commits its writes, and the routes. [`serve`] puts it behind a
/// socket; a test or a fuzzer can send requests to [`Service::router`]
/// directly (an axum [`Router`] is a tower service).
///
/// ```
/// use neardup_core::Width;
/// use neardup_dedup::Rule;
/// use neardup_server::{Limits, ServeOptions, Service};
/// use neardup_store::{Store, StoreOptions, StoreSettings};
///
/// let dir = tempfile::tempdir()?;
/// let settings = StoreSettings::new(Width::W64, 8, serde_json::json!({"profile": "auto"}), false);
/// let store = Store::<u64>::open(dir.path(), Some(&settings), StoreOptions::default())?;
/// let options = ServeOptions {
///     listen: "127.0.0.1:0".parse()?,
///     token: None,
///     limits: Limits::default(),
///     compact_after: None,
/// };
/// // No texts kept: fingerprints within the rule's k are duplicates.
/// let mut rule = Rule::new()?;
/// rule.verification(None);
/// let service = Service::new(store, rule, &options)?;
/// let _router = service.router();
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Service<B: Bits> {
    // Dropped in this order: the routes and this handle of the app, then
    // the writer thread is waited for once no handle of the app is left.
    router: Router,
    app: Arc<App<B>>,
    _writer: WriterThread<B>,
}

/// The group-commit thread, waited for on drop once every handle of the
/// app (and so of its committer) is gone; a router taken from the service
/// and still in use keeps the thread going, and it ends with the last.
struct WriterThread<B> {
    app: std::sync::Weak<App<B>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl<B> Drop for WriterThread<B> {
    fn drop(&mut self) {
        if self.app.strong_count() == 0
            && let Some(thread) = self.thread.take()
        {
            let _ = thread.join();
        }
    }
}

impl<B: Bits> Service<B> {
    /// Checks `options` and starts the writer thread. `rule` decides what
    /// is a duplicate, as it does for `neardup dedup` (its k is the k of
    /// requests that give none); texts are judged by its verification
    /// when the store keeps them, and short ones are found by their keys
    /// when it keeps those for this rule.
    ///
    /// # Errors
    ///
    /// [`StartError`] when the address is not loopback and no token is
    /// given, the token is empty, the fingerprints' width is not the
    /// store's, the rule's k is past the store's, or the writer thread
    /// cannot start.
    pub fn new(
        store: Store<B>,
        rule: Rule,
        options: &ServeOptions,
    ) -> Result<Service<B>, StartError> {
        let fingerprinter = rule.fingerprinter().clone();
        if rule.k_bits() > store.settings().k {
            return Err(StartError(format!(
                "-k {}: the store finds fingerprints at most {} bits apart",
                rule.k_bits(),
                store.settings().k
            )));
        }
        // Texts are judged only where both are kept.
        let verification = rule.verifier().filter(|_| store.settings().texts);
        let keyed = verification.is_some()
            && store.settings().short_keys.is_some()
            && store.settings().short_keys == rule.keying();
        if !options.listen.ip().is_loopback() && options.token.is_none() {
            return Err(StartError(format!(
                "--listen {}: anyone who can reach that address could write to the store; \
                 give --token-file with a secret token, or listen on 127.0.0.1",
                options.listen
            )));
        }
        if options.token.as_deref().is_some_and(str::is_empty) {
            return Err(StartError(
                "the token file is empty: put a secret token in it".into(),
            ));
        }
        if fingerprinter.width() != B::WIDTH {
            return Err(StartError(format!(
                "the store holds {}-bit fingerprints and the fingerprint settings make {}-bit ones",
                B::WIDTH.bits(),
                fingerprinter.width().bits()
            )));
        }
        let metrics = Arc::new(Metrics::default());
        let judge: Option<SharedJudge> = verification
            .map(|_| Arc::new(VerifiedTexts::new(rule.clone(), SKETCH_CACHE_BYTES)) as SharedJudge);
        let (committer, writer) = Committer::start(
            store.clone(),
            judge.clone(),
            options.limits.max_commit,
            metrics.clone(),
        )
        .map_err(|e| StartError(format!("cannot start the writer: {e}")))?;
        let app = Arc::new(App {
            store,
            committer,
            fingerprinter,
            verification,
            judge,
            keys: keyed.then(|| rule.clone()),
            limits: options.limits.clone(),
            k: rule.k_bits(),
            metrics,
            ready: AtomicBool::new(true),
        });
        Ok(Service {
            router: router(app.clone(), options),
            _writer: WriterThread {
                app: Arc::downgrade(&app),
                thread: Some(writer),
            },
            app,
        })
    }

    /// The routes, each request answered by this service.
    pub fn router(&self) -> Router {
        self.router.clone()
    }
}

/// Serves `store` until SIGTERM or Ctrl-C, then stops taking requests,
/// answers those in flight, commits what they wrote, and returns.
/// `started` is called with the address listened on (a port of 0 picks
/// one).
///
/// # Errors
///
/// [`StartError`] as [`Service::new`], and when the address cannot be
/// listened on or the runtime cannot start.
pub fn serve<B: Bits>(
    store: Store<B>,
    rule: Rule,
    options: ServeOptions,
    started: impl FnOnce(SocketAddr),
) -> Result<(), StartError> {
    let service = Service::new(store, rule, &options)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| StartError(format!("cannot start the runtime: {e}")))?;
    let app = service.app.clone();
    let result = runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(options.listen)
            .await
            .map_err(|e| StartError(format!("cannot listen on {}: {e}", options.listen)))?;
        let address = listener
            .local_addr()
            .map_err(|e| StartError(format!("cannot listen on {}: {e}", options.listen)))?;
        if let Some(idle) = options.compact_after {
            tokio::spawn(compact_when_idle(app.clone(), idle));
        }
        started(address);
        let stopping = app.clone();
        axum::serve(listener, service.router())
            .with_graceful_shutdown(async move {
                stop_signal().await;
                stopping.ready.store(false, Ordering::Release);
            })
            .await
            .map_err(|e| StartError(format!("the server failed: {e}")))
    });
    // The background tasks (the idle compaction) go with the runtime; a
    // compaction under way is left to finish or to die with the process,
    // which a merge survives. Then every handle of the committer is gone
    // with the app: the writer thread commits what it holds and ends.
    runtime.shutdown_timeout(Duration::from_secs(1));
    drop(app);
    drop(service);
    result
}

/// Merges every segment into one once no write has come for `idle`: a
/// store loaded and then mostly read answers from one segment's tables
/// (at 10^7 fingerprints, twice the queries a second of the tiers a
/// bulk load leaves; docs/BENCHMARKS.md). Writes go on meanwhile.
async fn compact_when_idle<B: Bits>(app: Arc<App<B>>, idle: Duration) {
    let mut seen = app.metrics.committed_writes.load(Ordering::Relaxed);
    let mut quiet_since = Instant::now();
    let mut tick = tokio::time::interval(Duration::from_secs(1).min(idle));
    loop {
        tick.tick().await;
        let now = app.metrics.committed_writes.load(Ordering::Relaxed);
        if now != seen {
            (seen, quiet_since) = (now, Instant::now());
            continue;
        }
        if quiet_since.elapsed() < idle || app.store.stats().segments.len() < 2 {
            continue;
        }
        let store = app.store.clone();
        if let Ok(Ok(())) = tokio::task::spawn_blocking(move || store.compact()).await {
            app.metrics.compactions.fetch_add(1, Ordering::Relaxed);
        }
        quiet_since = Instant::now();
    }
}

/// The routes, with the guard around all of them.
fn router<B: Bits>(app: Arc<App<B>>, options: &ServeOptions) -> Router {
    let guard = guard::Guard::new(
        options.token.clone(),
        options.limits.max_concurrent,
        app.metrics.clone(),
    );
    Router::new()
        .route("/v1/documents", post(routes::post_document::<B>))
        .route("/v1/documents:batch", post(routes::post_batch::<B>))
        .route(
            "/v1/documents/{id}",
            get(routes::get_document::<B>).delete(routes::delete_document::<B>),
        )
        .route("/v1/stats", get(routes::stats::<B>))
        .route("/metrics", get(routes::metrics::<B>))
        .route("/healthz", get(routes::healthz))
        .route("/readyz", get(routes::readyz::<B>))
        .route("/openapi.json", get(openapi))
        .fallback(routes::unknown)
        .method_not_allowed_fallback(routes::method_not_allowed)
        .layer(axum::middleware::from_fn(uri::bounded))
        .layer(axum::middleware::from_fn_with_state(
            Arc::new(guard),
            guard::check,
        ))
        .layer(DefaultBodyLimit::max(options.limits.max_body_bytes))
        .with_state(app)
}

async fn openapi() -> impl axum::response::IntoResponse {
    ([("content-type", "application/json")], OPENAPI)
}

/// SIGTERM, or Ctrl-C.
async fn stop_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = term => {},
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn docs_api_md_shows_the_openapi_document_served() {
        let doc = include_str!("../../../docs/API.md");
        let shown = doc
            .split("<!-- openapi begin -->\n```json\n")
            .nth(1)
            .and_then(|rest| rest.split("```\n<!-- openapi end -->").next());
        assert_eq!(
            shown,
            Some(super::OPENAPI),
            "copy crates/server/src/openapi.json into docs/API.md"
        );
        let parsed: serde_json::Value = serde_json::from_str(super::OPENAPI).expect("valid JSON");
        assert_eq!(parsed["openapi"], "3.1.0");
    }
}
