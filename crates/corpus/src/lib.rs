//! Reading documents for neardup: files, directories, stdin; JSON lines,
//! Parquet or plain text; gzip and zstd.
//!
//! A [`Corpus`] is the inputs of a run, expanded into files; its
//! [`documents`](Corpus::documents) stream yields each [`Document`] (id,
//! text, where it came from) or an [`Error`] that names the file and line
//! and says what to do. Record errors do not stop the stream, so a caller
//! can skip and count them.
//!
//! Formats, by extension after `.gz`/`.zst`:
//!
//! - `.jsonl`, `.ndjson`: one JSON object per line; the text is in the field
//!   `text` and the id in `id` (both configurable), else the id is
//!   `FILE:LINE`;
//! - `.parquet`: one document per row, read a batch of rows at a time; the
//!   text is in the column `text` and the id in `id` (both configurable),
//!   else the id is `FILE:ROW`;
//! - anything else: one document per file (id = path), or one per line.
//!
//! What is kept can be copied back out as it was read: [`copy_lines`] for
//! line-based files, [`copy_rows`] and [`ParquetRowWriter`] for Parquet.

#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod batches;
mod corpus;
mod error;
mod guard;
mod json_lines;
mod open;
mod options;
mod parquet;
mod parquet_copy;
mod walk;

pub use batches::Batch;
pub use corpus::{Corpus, Document, Documents, FieldValue};
pub use error::{Error, NotRead, Place, Result};
pub use guard::quiet_caught_panics;
pub use open::{CopyError, copy_lines};
pub use options::{Format, ReadOptions};
pub use parquet_copy::{ParquetRowWriter, check_same_columns, copy_rows};
