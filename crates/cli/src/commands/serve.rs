//! `neardup serve`: the store opened (or made) with the settings given,
//! served over HTTP until SIGTERM.

use std::process::ExitCode;

use anyhow::{Result, bail};
use neardup_core::Width;
use neardup_index::Bits;
use neardup_server::{Limits, ServeOptions, Token};
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
    let mut settings = StoreSettings::new(
        width,
        k,
        config::fingerprint_settings(&args.settings, width)?,
        args.store_text,
    );
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
        (_, Some(keying)) if args.store_text => settings = settings.keyed(keying),
        _ => {}
    }
    let options = ServeOptions {
        listen: args.listen,
        token,
        limits: Limits {
            max_body_bytes: args.max_body_bytes,
            max_batch: args.max_batch,
            max_text_bytes: args.max_text_bytes,
            max_concurrent: args.max_concurrent,
            ..Limits::default()
        },
        compact_after: (args.compact_after > 0)
            .then(|| std::time::Duration::from_secs(args.compact_after)),
    };
    let store_options = StoreOptions {
        flush_at: args.flush_at,
        ..StoreOptions::default()
    };
    match width {
        Width::W64 => serve::<u64>(args, &settings, store_options, rule.clone(), options),
        _ => serve::<u128>(args, &settings, store_options, rule.clone(), options),
    }
}

fn serve<B: Bits>(
    args: &ServeArgs,
    settings: &StoreSettings,
    store_options: StoreOptions,
    rule: neardup_dedup::Rule,
    options: ServeOptions,
) -> Result<ExitCode> {
    let store = Store::<B>::open(&args.index, Some(settings), store_options)?;
    let documents = store.stats().documents;
    let dir = args.index.display().to_string();
    neardup_server::serve(store, rule, options, |address| {
        // The line a supervisor (or a test) waits for.
        eprintln!("neardup: serving {dir} ({documents} documents) on http://{address}");
    })?;
    eprintln!("neardup: stopped; every acknowledged write is in {dir}");
    Ok(ExitCode::SUCCESS)
}
