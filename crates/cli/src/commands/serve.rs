//! `neardup serve`: the store opened (or made) with the settings given,
//! served over HTTP until SIGTERM.

use std::process::ExitCode;

use anyhow::{Result, bail};
use neardup_core::Width;
use neardup_index::Bits;
use neardup_server::{Bound, ServeOptions, Token};
use neardup_store::{Store, StoreOptions, StoreSettings};

use crate::args::ServeArgs;
use crate::config;

pub fn run(args: &ServeArgs) -> Result<ExitCode> {
    // Read and checked first: a refused token file leaves no store made.
    let token = args
        .token_file
        .as_deref()
        .map(|path| Token::from_file(path, |warning| eprintln!("neardup: warning: {warning}")))
        .transpose()?;
    let fingerprinter = config::fingerprinter(&args.settings)?;
    let width = fingerprinter.width();
    let verification = if args.store_text {
        config::verification_of(args.threshold, &args.verify)?
    } else {
        if args.threshold.is_some() {
            bail!("--threshold checks texts: give --store-text too, so that texts are kept");
        }
        None
    };
    let stored = StoreSettings::of(&args.index)?;
    let k = args
        .k
        .or(stored.as_ref().map(|s| s.k))
        .unwrap_or(config::DEFAULT_K);
    // The rule of `neardup dedup`, with the service's k and verification.
    let mut rule = neardup_dedup::Rule::with_fingerprinter(fingerprinter);
    rule.k(k)
        .verification(verification)
        .short_words(args.short_words);
    let mut settings = StoreSettings::builder(k);
    settings
        .fingerprint(rule.fingerprinter().settings())
        .texts(args.store_text);
    // Short texts are found at any distance by keys the store keeps; a
    // store made before it kept them is served as it is.
    match (&stored, rule.keying()) {
        (Some(stored), _) if stored.short_keys.is_none() && args.store_text => {
            eprintln!(
                "neardup: warning: {} was made before stores kept short-document keys: \
                 short texts are judged only against those within {k} bits; build a new \
                 store to judge them as dedup does",
                args.index.display()
            );
        }
        (Some(stored), _) if stored.short_keys.is_none() => {}
        (_, Some(keying)) if args.store_text => {
            settings.short_keys(keying);
        }
        _ => {}
    }
    let options = ServeOptions::builder(args.listen)
        .token(token)
        .max_body_bytes(args.max_body_bytes)
        .max_batch(args.max_batch)
        .max_text_bytes(args.max_text_bytes)
        .max_concurrent(args.max_concurrent)
        .max_connections(connections_within_file_limit(args.max_connections))
        .header_timeout(args.header_timeout.0)
        .body_timeout(args.body_timeout.0)
        .idle_timeout(args.idle_timeout.0)
        .compact_after(
            (args.compact_after > 0).then(|| std::time::Duration::from_secs(args.compact_after)),
        )
        .shutdown_timeout(args.shutdown_timeout.0)
        .build()?;
    // Whatever a start can refuse is refused before the store is made or
    // opened: a refused start changes nothing on disk.
    let bound = Bound::new(options)?;
    let store_options = StoreOptions::builder().flush_at(args.flush_at).build();
    let settings = settings.build();
    match width {
        Width::W64 => serve::<u64>(args, &settings, store_options, rule, bound),
        _ => serve::<u128>(args, &settings, store_options, rule, bound),
    }
}

fn serve<B: Bits>(
    args: &ServeArgs,
    settings: &StoreSettings,
    store_options: StoreOptions,
    rule: neardup_dedup::Rule,
    bound: Bound,
) -> Result<ExitCode> {
    let store = Store::<B>::open(&args.index, Some(settings), store_options)?;
    let documents = store.stats().documents;
    let dir = args.index.display().to_string();
    bound.serve(store, rule, |address| {
        // The line a supervisor (or a test) waits for.
        eprintln!("neardup: serving {dir} ({documents} documents) on http://{address}");
    })?;
    eprintln!("neardup: stopped; every acknowledged write is in {dir}");
    Ok(ExitCode::SUCCESS)
}

/// Files the process keeps open besides its connections: the store's log
/// and segments, the runtime's, the standard streams.
const FILES_BESIDES_CONNECTIONS: u64 = 256;

/// `wanted` connections, or fewer when the process may not open that many
/// files (`ulimit -n`): the soft limit is raised toward the hard one
/// first; what is still missing is taken off the cap, with a warning, so
/// that accepting never runs out of file descriptors.
fn connections_within_file_limit(wanted: usize) -> usize {
    #[cfg(unix)]
    {
        use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
        let needed = wanted as u64 + FILES_BESIDES_CONNECTIONS;
        let limit = getrlimit(Resource::Nofile);
        // None is unlimited.
        let mut soft = limit.current.unwrap_or(u64::MAX);
        if soft < needed {
            let raised = needed.min(limit.maximum.unwrap_or(u64::MAX));
            let new = Rlimit {
                current: Some(raised),
                maximum: limit.maximum,
            };
            if setrlimit(Resource::Nofile, new).is_ok() {
                soft = raised;
            }
        }
        let room = soft.saturating_sub(FILES_BESIDES_CONNECTIONS);
        if room < wanted as u64 {
            let most = usize::try_from(room).unwrap_or(wanted).max(1);
            eprintln!(
                "neardup: warning: --max-connections {wanted} lowered to {most}: this process \
                 may open {soft} files (ulimit -n); raise that limit for more"
            );
            return most;
        }
    }
    wanted
}
