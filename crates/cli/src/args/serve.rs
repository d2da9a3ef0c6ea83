//! `neardup serve`'s arguments.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::Args;

use super::FingerprintSettings;
use super::values::{Seconds, parse_k, parse_seconds};

pub const SERVE_EXAMPLES: &str = "\
Examples:
  neardup serve --index store/                          on 127.0.0.1:8077, texts not kept
  neardup serve --index store/ --store-text --threshold 0.8
  (umask 077; head -c 32 /dev/urandom | base64 > token.txt)
  neardup serve --index store/ --listen 0.0.0.0:8077 --token-file token.txt
  kill -HUP <pid>                                       token.txt read again: the new token in use

  curl -s localhost:8077/v1/documents -d '{\"id\": \"page-1\", \"text\": \"...\"}'

The API: docs/API.md, and /openapi.json.";

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The store's directory: made on the first start, with the settings
    /// given; later starts must give the same settings.
    #[arg(long, value_name = "DIR")]
    pub index: PathBuf,
    /// The address to listen on. Anything but loopback needs --token-file.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8077")]
    pub listen: SocketAddr,
    /// A file holding the bearer token every request (but /healthz and
    /// /readyz) must send: Authorization: Bearer <token>. The token is one
    /// line of visible ASCII, 16 to 1024 characters (make one with
    /// `head -c 32 /dev/urandom | base64`); the file may end with a line
    /// break, nothing is trimmed. On unix a file others may write is
    /// refused, one they may read warned of (chmod 600). On SIGHUP the file is read again: a valid token
    /// replaces the old one at once, an invalid file keeps the old token
    /// and says why on stderr.
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<PathBuf>,
    /// Candidates by fingerprint are at most K bits apart, as dedup's -k
    /// [default: 8 for a new store, the store's k after].
    #[arg(short, long, value_parser = parse_k)]
    pub k: Option<u32>,
    /// Keep each document's text, so that duplicates are checked on the
    /// texts (as --threshold or --verify say), not on fingerprints alone.
    #[arg(long)]
    pub store_text: bool,
    /// With --store-text: duplicates have a Jaccard similarity of their
    /// shingles of at least T (as dedup's --threshold).
    #[arg(long, value_name = "T", conflicts_with = "verify")]
    pub threshold: Option<f64>,
    /// With --store-text: texts under N words are short, found at any
    /// distance by their keys (as dedup's --short-words; all: every text).
    #[arg(long, value_name = "N|all", default_value_t = neardup_dedup::SHORT_WORDS, value_parser = super::values::parse_short_words)]
    pub short_words: usize,
    /// With --store-text: jaccard:T, words:D, or none (as dedup's --verify).
    #[arg(long, value_name = "jaccard:T|words:D|none", default_value_t = crate::config::default_verify())]
    pub verify: String,
    /// The largest request body, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = defaults().limits().max_body_bytes())]
    pub max_body_bytes: usize,
    /// The most documents in one batch request.
    #[arg(long, value_name = "N", default_value_t = defaults().limits().max_batch())]
    pub max_batch: usize,
    /// The longest text, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = defaults().limits().max_text_bytes())]
    pub max_text_bytes: usize,
    /// The most requests worked on at once (their bodies read); more are
    /// answered 503. /healthz, /readyz and /metrics are never counted.
    #[arg(long, value_name = "N", default_value_t = defaults().limits().max_concurrent())]
    pub max_concurrent: usize,
    /// The most connections open at once. At the cap, a new one closes the
    /// one idle (or stalled sending) for longest; lowered to what
    /// `ulimit -n` allows, with a warning.
    #[arg(long, value_name = "N", default_value_t = defaults().limits().max_connections())]
    pub max_connections: usize,
    /// A request's head (request line and headers) must arrive within this
    /// many seconds of its first byte, and a new connection's first byte
    /// within this many seconds of its opening; else it is closed.
    #[arg(long, value_name = "SECONDS", default_value_t = Seconds(defaults().limits().header_timeout()), value_parser = parse_seconds)]
    pub header_timeout: Seconds,
    /// A request's body must arrive within this many seconds of its head;
    /// else 408 and the connection is closed.
    #[arg(long, value_name = "SECONDS", default_value_t = Seconds(defaults().limits().body_timeout()), value_parser = parse_seconds)]
    pub body_timeout: Seconds,
    /// A connection kept alive with no next request for this many seconds
    /// is closed.
    #[arg(long, value_name = "SECONDS", default_value_t = Seconds(defaults().limits().idle_timeout()), value_parser = parse_seconds)]
    pub idle_timeout: Seconds,
    /// From SIGTERM, requests in flight get this many seconds to finish;
    /// then their connections are cut and the service exits.
    #[arg(long, value_name = "SECONDS", default_value_t = Seconds(defaults().shutdown_timeout()), value_parser = parse_seconds)]
    pub shutdown_timeout: Seconds,
    /// Recent documents are written to an index segment of their own once
    /// this many.
    #[arg(long, value_name = "N", default_value_t = 1 << 16)]
    pub flush_at: usize,
    /// Once no write has come for this many seconds, merge every index
    /// segment into one (queries then read one segment); 0: never.
    #[arg(long, value_name = "SECONDS", default_value_t = defaults().compact_after().map_or(0, |d| d.as_secs()))]
    pub compact_after: u64,
    #[command(flatten)]
    pub settings: FingerprintSettings,
}

/// The service's own defaults, shown by `--help`: decided once, in
/// `neardup_server`.
fn defaults() -> neardup_server::ServeOptions {
    neardup_server::ServeOptions::default()
}
