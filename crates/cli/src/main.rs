//! The `neardup` command: wiring only. Arguments are parsed in `args`, turned
//! into library objects in `config`, and each subcommand in `commands` runs
//! the libraries.

#![forbid(unsafe_code)]

mod args;
mod commands;
mod config;
mod fingerprints;
mod pipeline;
mod progress;
mod report;

use std::process::ExitCode;

use clap::Parser;

use crate::args::{Cli, Command};

/// Documents are read into strings of a few kilobytes each, many per second
/// and per thread; mimalloc's thread-local free lists serve that pattern at
/// a fraction of the system allocator's cost.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    // The Parquet reader's panics on damaged files come back as errors
    // that name the file; the hook need not print them too.
    neardup_corpus::quiet_caught_panics();
    // clap prints help and version itself and exits 2 on a usage error.
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Fingerprint(a) => commands::fingerprint::run(a),
        Command::Compare(a) => commands::compare::run(a),
        Command::Idf(a) => commands::idf::run(a),
        Command::Pairs(a) => commands::pairs::run(a),
        Command::Plan(a) => commands::plan::run(a),
        Command::Index(c) => commands::index::run(c),
        Command::Dedup(a) => commands::dedup::run(a),
        Command::Eval(a) => commands::eval::run(a),
        Command::Serve(a) => commands::serve::run(a),
    };
    match result {
        Ok(code) => code,
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("neardup: {err:#}{}", flag_hint(&err, &cli.command));
            ExitCode::from(2)
        }
    }
}

/// The flag that changes what a reading error is about: the libraries
/// say what to do ("name the field to read"), the command says with which flag.
fn flag_hint(err: &anyhow::Error, command: &Command) -> &'static str {
    use neardup_corpus::Error as ReadError;
    let read = err.chain().find_map(|cause| {
        cause.downcast_ref::<ReadError>().or_else(|| {
            cause
                .downcast_ref::<neardup_output::Error>()
                .and_then(neardup_output::Error::read_error)
        })
    });
    // pairs and index read fingerprints, not texts.
    let of_fingerprints = matches!(command, Command::Pairs(_) | Command::Index(_));
    match read {
        Some(ReadError::MissingField { .. } | ReadError::MissingColumn { .. })
            if of_fingerprints =>
        {
            " with --fingerprint-field"
        }
        Some(ReadError::MissingField { .. } | ReadError::MissingColumn { .. }) => {
            " with --text-field"
        }
        Some(ReadError::ColumnType { .. }) => " (--text-field)",
        Some(ReadError::TooLarge { .. }) => " with --max-bytes",
        Some(ReadError::Parquet { .. }) => " (--format)",
        _ => "",
    }
}

/// A closed stdout (as in `neardup fingerprint … | head`) ends the run
/// quietly: whether the write that met it was ours or serde_json's.
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    use std::io::ErrorKind::BrokenPipe;
    err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == BrokenPipe)
            || cause
                .downcast_ref::<serde_json::Error>()
                .is_some_and(|e| e.io_error_kind() == Some(BrokenPipe))
    })
}
