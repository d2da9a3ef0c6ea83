//! The output directory of a dedup run: what `neardup dedup` writes, as a
//! library, so that every front (the CLI, Python's `dedup_files`) writes
//! the same files the same way.
//!
//! [`DedupRun`] takes the inputs, a [`neardup_dedup::Dedup`] job and an
//! output directory; [`DedupRun::run`] runs the job over the files and
//! writes, each file to a temporary name renamed when whole and
//! `summary.json` last:
//!
//! - `unique.jsonl`, `unique.parquet`, `unique.txt`: the kept records,
//!   byte for byte (`records`);
//! - `duplicates.jsonl` and `clusters.jsonl`: each dropped document with
//!   the one it duplicates, and each group;
//! - `report.html`: a page that shows a person what was found;
//! - `summary.json`: the counts and settings;
//!
//! and, with `save_index`, adds the kept documents to an index directory
//! for later runs against it: locked from the run's start, and changed in
//! one batch that a later run undoes if the run's `summary.json` never came
//! (`saving`), so that outputs and index change together. Errors are one
//! [`Error`]: each case names the file, directory or option at fault, and
//! every front shows its message and causes as they are.
//!
//! The parts: [`atomic`] (files written whole or not at all), `records`,
//! `reread` (the last pass, for the ids the outputs name), `report`,
//! `incremental` (index directories of earlier runs), `saving` (the index
//! a run saves to), `out_dir` (the output directory locked, checked,
//! cleared), [`below_memory_floor`] (a `--memory` below what a run takes
//! whatever the budget), [`Step`] and [`Faults`] (where a test may fail a run),
//! [`markup`].

pub mod atomic;
mod error;
mod faults;
mod incremental;
pub mod markup;
mod memory_floor;
mod out_dir;
mod records;
mod report;
mod reread;
mod run;
mod saving;

pub use atomic::{is_temporary_of, refuse_input_as_output, write_atomically};
pub use error::{Error, Result, with_causes};
pub use faults::{Faults, Step};
pub use memory_floor::below_memory_floor;
pub use run::{DedupRun, DedupRunBuilder, Finished, against_index};
