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
//! - `listen`: connections accepted and served over HTTP/1.1, and the
//!   shutdown with its deadline ([`Bound`]);
//! - `connections`: what each open connection is doing, its time limits,
//!   and the cap on how many are open;
//! - `api`: the bodies of requests and answers;
//! - `routes`: the handlers;
//! - `guard`: the token, the body read within its limits, the limit on
//!   requests worked on, the count of answers;
//! - `commit`: group commit;
//! - `judge`: a new or queried text compared with stored ones
//!   ([`VerifiedTexts`]);
//! - `metrics`: the counters that `/metrics` shows;
//! - `token`: what a token may be, its file, read again on SIGHUP
//!   ([`Token`]).
//!
//! docs/API.md describes the API; `/openapi.json` serves it ([`OPENAPI`]).
//!
//! # Example
//!
//! ```no_run
//! use neardup_dedup::{Rule, index_settings};
//! use neardup_server::{ServeOptions, serve};
//! use neardup_store::{Store, StoreOptions};
//!
//! // The rule of `neardup dedup`: its defaults, texts judged by it, and the
//! // settings of its fingerprinter recorded.
//! let rule = Rule::new()?;
//! let settings = index_settings(&rule);
//! let store = Store::<u64>::open("store".as_ref(), Some(&settings), StoreOptions::default())?;
//! let options = ServeOptions::builder("127.0.0.1:8077".parse()?).build()?;
//! // Until SIGTERM or Ctrl-C.
//! serve(store, rule, options, |at| eprintln!("on {at}"))?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![deny(missing_docs)]

mod api;
mod commit;
mod connections;
mod error;
mod guard;
mod listen;
mod metrics;
mod options;
mod routes;
mod token;
mod uri;

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};
use neardup_dedup::Rule;
use neardup_index::Bits;
use neardup_store::Store;

use crate::commit::{Committer, SharedJudge};
use crate::metrics::Metrics;
use crate::routes::App;

pub use crate::listen::Bound;
pub use crate::options::{Limits, ServeOptions, ServeOptionsBuilder};
pub use crate::token::{MAX_TOKEN_LEN, MIN_TOKEN_LEN, Token, TokenError};
pub use neardup_dedup::VerifiedTexts;

/// The OpenAPI document of the service, served at `/openapi.json` and
/// shown in docs/API.md.
pub const OPENAPI: &str = include_str!("openapi.json");

/// The bytes of stored texts' sketches the service keeps for its next
/// comparisons ([`VerifiedTexts`]): those of about 13,000 pages of 600
/// words (a word 3-shingle sketch is 8 bytes a shingle).
const SKETCH_CACHE_BYTES: usize = 64 << 20;

/// What stops the service from starting: each case names the option or
/// the part at fault, and its message says what to do. The OS's error, when
/// there is one, is in the message (not a source too: a chain of causes
/// would print it twice).
///
/// ```
/// use neardup_server::StartError;
///
/// let err = StartError::ZeroTimeout { flag: "--idle-timeout" };
/// assert_eq!(err.to_string(), "--idle-timeout 0 would close every connection at once: give seconds");
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StartError {
    /// A listening address other than loopback without a token.
    #[error(
        "--listen {listen}: anyone who can reach that address could write to the store; \
         give --token-file with a secret token, or listen on 127.0.0.1"
    )]
    OpenWithoutToken {
        /// The address.
        listen: SocketAddr,
    },
    /// No connections left over the concurrent requests.
    #[error(
        "--max-connections {max_connections} must be more than --max-concurrent \
         {max_concurrent}: connections must be left for probes and for requests being read"
    )]
    TooFewConnections {
        /// [`Limits::max_connections`].
        max_connections: usize,
        /// [`Limits::max_concurrent`].
        max_concurrent: usize,
    },
    /// A timeout of zero.
    #[error("{flag} 0 would close every connection at once: give seconds")]
    ZeroTimeout {
        /// The timeout's flag (`--header-timeout`, …).
        flag: &'static str,
    },
    /// A rule that finds pairs further apart than the store's tables do.
    #[error("-k {k}: the store finds fingerprints at most {store_k} bits apart")]
    KBeyondStore {
        /// The rule's k.
        k: u32,
        /// The store's.
        store_k: u32,
    },
    /// Fingerprint settings of another width than the store's.
    #[error(
        "the store holds {store_bits}-bit fingerprints and the fingerprint settings make \
         {settings_bits}-bit ones"
    )]
    WidthMismatch {
        /// The store's width, in bits.
        store_bits: u32,
        /// The fingerprint settings'.
        settings_bits: u32,
    },
    /// A thread or the runtime that could not be started.
    #[error("cannot start the {what}: {error}")]
    Thread {
        /// Which (`runtime`, `writer`).
        what: &'static str,
        /// The OS's error.
        error: std::io::Error,
    },
    /// An address that cannot be listened on.
    #[error(
        "cannot listen on {listen}: {error} (another process on that port? give another --listen)"
    )]
    Listen {
        /// The address.
        listen: SocketAddr,
        /// The OS's error.
        error: std::io::Error,
    },
}

/// The service without a listener: the store, the thread that
/// group-commits its writes, and the routes. [`serve`] puts it behind a
/// socket; a test or a fuzzer can send requests to [`Service::router`]
/// directly (an axum [`Router`] is a tower service). The routes apply the
/// limits of a request (its body's size and time, the permits); those of
/// connections (timeouts, the cap) are the listener's.
///
/// ```
/// use neardup_dedup::Rule;
/// use neardup_server::{ServeOptions, Service};
/// use neardup_store::{Store, StoreOptions, StoreSettings};
///
/// let dir = tempfile::tempdir()?;
/// let settings = StoreSettings::builder(8).build();
/// let store = Store::<u64>::open(dir.path(), Some(&settings), StoreOptions::default())?;
/// let options = ServeOptions::builder("127.0.0.1:0".parse()?).build()?;
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
    /// [`StartError`] when the fingerprints' width is not the store's, the
    /// rule's k is past the store's, or the writer thread cannot start.
    /// (The options were checked when built, a [`Token`] when made.)
    pub fn new(
        store: Store<B>,
        rule: Rule,
        options: &ServeOptions,
    ) -> Result<Service<B>, StartError> {
        let fingerprinter = rule.fingerprinter().clone();
        if rule.k_bits() > store.settings().k {
            return Err(StartError::KBeyondStore {
                k: rule.k_bits(),
                store_k: store.settings().k,
            });
        }
        // Texts are judged only where both are kept.
        let verification = rule.verifier().filter(|_| store.settings().texts);
        let keyed = neardup_dedup::keyed_for(store.settings(), &rule);
        if fingerprinter.width() != B::WIDTH {
            return Err(StartError::WidthMismatch {
                store_bits: B::WIDTH.bits(),
                settings_bits: fingerprinter.width().bits(),
            });
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
        .map_err(|error| StartError::Thread {
            what: "writer",
            error,
        })?;
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
/// answers those in flight (within `options.shutdown_timeout`), commits
/// what they wrote, and returns. `started` is called with the address
/// listened on (a port of 0 picks one). [`Bound`] does the same in two
/// steps, so that nothing is opened before the address is.
///
/// # Errors
///
/// [`StartError`] as [`Bound::new`] and [`Service::new`].
pub fn serve<B: Bits>(
    store: Store<B>,
    rule: Rule,
    options: ServeOptions,
    started: impl FnOnce(SocketAddr),
) -> Result<(), StartError> {
    Bound::new(options)?.serve(store, rule, started)
}

/// The routes, with the guard around all of them.
fn router<B: Bits>(app: Arc<App<B>>, options: &ServeOptions) -> Router {
    let guard = guard::Guard::new(options.token.clone(), &options.limits, app.metrics.clone());
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
