//! Errors of reading documents, each naming the file and line and saying
//! what to do.

use std::io;
use std::path::PathBuf;
use std::sync::Arc;

/// Where in the input something happened: a file (or `-` for stdin) and,
/// for line-based formats, a 1-based line (for Parquet, a 1-based row).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Place {
    /// The file, as given or found by walking a directory.
    pub path: PathBuf,
    /// The 1-based line, for line-based formats; the 1-based row, for
    /// Parquet.
    pub line: Option<u64>,
}

impl std::fmt::Display for Place {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}", self.path.display()),
            None => write!(f, "{}", self.path.display()),
        }
    }
}

/// What went wrong reading documents.
///
/// ```
/// use neardup_corpus::{Corpus, ReadOptions};
///
/// let err = Corpus::open(&["no/such/file.txt"], &ReadOptions::default()).unwrap_err();
/// assert!(err.to_string().contains("no/such/file.txt"));
/// assert!(!err.is_record());
/// ```
#[derive(Clone, Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file or directory could not be opened or read.
    #[error("{place}: {}", advice(cause))]
    Io {
        /// Where.
        place: Place,
        /// The cause (in the message, not a source too: a chain of causes
        /// would print it twice).
        cause: Arc<io::Error>,
    },
    /// A directory holds no documents.
    #[error("{place}: no readable documents in this directory{detail}")]
    NoDocuments {
        /// The directory.
        place: Place,
        /// What was skipped, if anything.
        detail: String,
    },
    /// A JSON line does not parse.
    #[error("{place}: invalid JSON ({message}); each line must be one JSON object")]
    Json {
        /// Where.
        place: Place,
        /// What the parser said.
        message: String,
    },
    /// A JSON record lacks the text field.
    #[error("{place}: no {field:?} field{hint}; name the field to read")]
    MissingField {
        /// Where.
        place: Place,
        /// The field that was looked for.
        field: String,
        /// The fields the record has, when there are any.
        hint: String,
    },
    /// A JSON field has the wrong type.
    #[error("{place}: field {field:?} is {found}, expected {expected}")]
    FieldType {
        /// Where.
        place: Place,
        /// The field.
        field: String,
        /// What it is.
        found: &'static str,
        /// What it should be.
        expected: &'static str,
    },
    /// Text that is not UTF-8.
    #[error(
        "{place}: invalid UTF-8 at byte {offset}; convert the file to UTF-8 (for example with iconv)"
    )]
    Utf8 {
        /// Where.
        place: Place,
        /// The byte offset of the first invalid byte, in the file or line.
        offset: u64,
    },
    /// A document larger than the limit.
    #[error(
        "{place}: document of {size} bytes is larger than the limit of {limit} bytes; \
         split it, or raise the limit"
    )]
    TooLarge {
        /// Where.
        place: Place,
        /// Its size, or a lower bound when it was not read to the end.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// A file that looks binary.
    #[error("{place}: looks binary (a NUL byte at offset {offset}); give text files only")]
    Binary {
        /// Where.
        place: Place,
        /// The offset of the first NUL byte.
        offset: u64,
    },
    /// A file that looks binary, found by walking a directory (a tree of
    /// documents often holds images and archives): skipped, and counted,
    /// whatever `--skip-invalid` says.
    #[error(
        "{place}: looks binary (a NUL byte at offset {offset}); skipped, as binary files found in a directory are"
    )]
    BinaryInDirectory {
        /// Where.
        place: Place,
        /// The offset of the first NUL byte.
        offset: u64,
    },
    /// A line that went on past twice `--max-bytes` without an end: the
    /// rest of its file is not read.
    #[error(
        "{place}: the line runs past twice the limit of {limit} bytes without an end; the rest of the file is not read (is it a text file?)"
    )]
    EndlessLine {
        /// Where.
        place: Place,
        /// The limit, in bytes.
        limit: u64,
    },
    /// A file of a format that is not read (CSV): the message says what to
    /// do. Found by walking a directory, it is skipped and counted.
    #[error("{place}: {message}")]
    Unsupported {
        /// Where.
        place: Place,
        /// What to do.
        message: String,
        /// Whether it was found by walking a directory.
        walked: bool,
    },
    /// A file without a document: empty or only whitespace (for line-based
    /// files, JSON lines or text with `--lines`, no record): skipped, and
    /// counted.
    #[error("{place}: empty or only whitespace, no document in it")]
    EmptyFile {
        /// Where.
        place: Place,
    },
    /// A record (a JSON line, a Parquet row) whose text is empty or only
    /// whitespace: skipped, and counted, since blank documents would all
    /// be exact copies of each other.
    #[error("{place}: the text is empty or only whitespace, nothing to compare")]
    BlankText {
        /// Where.
        place: Place,
    },
    /// An entry found by walking a directory and not read, for `reason`:
    /// skipped, and counted.
    #[error("{place}: {reason}; not read")]
    NotRead {
        /// The entry.
        place: Place,
        /// Why it was not read.
        reason: NotRead,
    },
    /// A Parquet file that cannot be read: not Parquet, damaged, compressed
    /// as a whole, or stdin. The message says what to do.
    #[error("{place}: {message}")]
    Parquet {
        /// The file, and the row where reading stopped if known.
        place: Place,
        /// What went wrong, and what to do.
        message: String,
    },
    /// A Parquet file without the text column.
    #[error(
        "{place}: no column {column:?} (it has: {}); name the text column",
        columns.join(", ")
    )]
    MissingColumn {
        /// The file.
        place: Place,
        /// The column that was looked for.
        column: String,
        /// The columns the file has.
        columns: Vec<String>,
    },
    /// A Parquet column whose type cannot be read as asked.
    #[error("{place}: column {column:?} is of type {found}, expected {expected}")]
    ColumnType {
        /// The file.
        place: Place,
        /// The column.
        column: String,
        /// Its Arrow type.
        found: String,
        /// What it should be.
        expected: &'static str,
    },
    /// Parquet files whose rows go to one output have different columns.
    #[error(
        "{place}: its columns differ from those of {} ({detail}); rows are copied into one \
         Parquet file of one schema, so give files of one schema at a time",
        first.display()
    )]
    SchemaMismatch {
        /// The file whose columns differ.
        place: Place,
        /// The first file copied, whose columns the output has.
        first: PathBuf,
        /// The first difference.
        detail: String,
    },
    /// The rows of a Parquet file could not be written out.
    #[error("{place}: cannot write its kept rows ({message}); check the output's disk space")]
    WriteRows {
        /// The file whose rows were being copied.
        place: Place,
        /// What the writer said.
        message: String,
    },
}

impl Error {
    pub(crate) fn io(place: Place, cause: io::Error) -> Error {
        Error::Io {
            place,
            cause: Arc::new(cause),
        }
    }

    /// Whether the error concerns one record (or one file found in a
    /// directory), which `--skip-invalid` may skip, rather than the input
    /// as a whole: reading goes on after it.
    pub fn is_record(&self) -> bool {
        !matches!(
            self,
            Error::Io { .. }
                | Error::NoDocuments { .. }
                | Error::EndlessLine { .. }
                | Error::Unsupported { walked: false, .. }
                | Error::Parquet { .. }
                | Error::MissingColumn { .. }
                | Error::ColumnType { .. }
                | Error::SchemaMismatch { .. }
                | Error::WriteRows { .. }
        )
    }

    /// Whether a run skips the error, and counts it, rather than stops:
    /// a binary or CSV file found in a directory and an empty file always,
    /// another error of one
    /// record when `skip_invalid` (`--skip-invalid`).
    ///
    /// ```
    /// use neardup_corpus::{Error, Place};
    ///
    /// let place = Place { path: "docs/logo.png".into(), line: None };
    /// let found = Error::BinaryInDirectory { place: place.clone(), offset: 3 };
    /// let given = Error::Binary { place, offset: 3 };
    /// assert!(found.is_skipped(false));
    /// assert!(!given.is_skipped(false) && given.is_skipped(true));
    /// ```
    pub fn is_skipped(&self, skip_invalid: bool) -> bool {
        matches!(
            self,
            Error::BinaryInDirectory { .. }
                | Error::EmptyFile { .. }
                | Error::BlankText { .. }
                | Error::NotRead { .. }
                | Error::Unsupported { walked: true, .. }
        ) || (skip_invalid && self.is_record())
    }

    /// Where it happened.
    pub fn place(&self) -> &Place {
        match self {
            Error::Io { place, .. }
            | Error::NoDocuments { place, .. }
            | Error::Json { place, .. }
            | Error::MissingField { place, .. }
            | Error::FieldType { place, .. }
            | Error::Utf8 { place, .. }
            | Error::TooLarge { place, .. }
            | Error::Binary { place, .. }
            | Error::BinaryInDirectory { place, .. }
            | Error::EndlessLine { place, .. }
            | Error::EmptyFile { place }
            | Error::BlankText { place }
            | Error::NotRead { place, .. }
            | Error::Unsupported { place, .. }
            | Error::Parquet { place, .. }
            | Error::MissingColumn { place, .. }
            | Error::ColumnType { place, .. }
            | Error::SchemaMismatch { place, .. }
            | Error::WriteRows { place, .. } => place,
        }
    }

    /// A short name for the kind of error, for counts in summaries.
    pub fn kind_name(&self) -> &'static str {
        match self {
            Error::Io { .. } => "io",
            Error::NoDocuments { .. } => "no-documents",
            Error::Json { .. } => "invalid-json",
            Error::MissingField { .. } => "missing-field",
            Error::FieldType { .. } => "field-type",
            Error::Utf8 { .. } => "invalid-utf8",
            Error::TooLarge { .. } => "too-large",
            Error::Binary { .. } => "binary",
            Error::BinaryInDirectory { .. } => "binary-file",
            Error::EndlessLine { .. } => "endless-line",
            Error::EmptyFile { .. } => "empty-file",
            Error::BlankText { .. } => "blank-text",
            Error::NotRead { reason, .. } => reason.kind_name(),
            Error::Unsupported { .. } => "unsupported-format",
            Error::Parquet { .. } => "invalid-parquet",
            Error::MissingColumn { .. } => "missing-column",
            Error::ColumnType { .. } => "column-type",
            Error::SchemaMismatch { .. } => "schema-mismatch",
            Error::WriteRows { .. } => "write-rows",
        }
    }
}

/// Why an entry found by walking a directory was not read.
///
/// ```
/// use neardup_corpus::NotRead;
///
/// assert_eq!(NotRead::LinkLoop.kind_name(), "link-loop");
/// assert!(NotRead::Special("FIFO").to_string().contains("FIFO"));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum NotRead {
    /// A symbolic link to nothing: its target is missing, or links lead
    /// round in a circle.
    DanglingLink,
    /// A symbolic link to a directory that holds it: followed, it would
    /// read that directory again and again.
    LinkLoop,
    /// A symbolic link to a file or directory in the same input directory:
    /// read at its own path, not twice.
    LinkInside,
    /// A FIFO, socket or device (named): never opened, since opening a
    /// FIFO waits for a writer.
    Special(&'static str),
    /// The output directory of a `neardup dedup` (it holds `summary.json`
    /// and `report.html`, or a run's lock): a run writing into its own
    /// input would read its outputs the next time.
    DedupOutput,
}

impl NotRead {
    /// A short name for counts in summaries.
    pub fn kind_name(&self) -> &'static str {
        match self {
            NotRead::DanglingLink => "dangling-link",
            NotRead::LinkLoop => "link-loop",
            NotRead::LinkInside => "link-inside-input",
            NotRead::Special(_) => "special-file",
            NotRead::DedupOutput => "dedup-output",
        }
    }
}

impl std::fmt::Display for NotRead {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotRead::DanglingLink => write!(
                f,
                "a symbolic link to nothing (its target is missing, or links lead round in a \
                 circle)"
            ),
            NotRead::LinkLoop => write!(f, "a symbolic link to a directory above it (a loop)"),
            NotRead::LinkInside => write!(
                f,
                "a symbolic link to a file or directory of this input, read at its own path"
            ),
            NotRead::Special(what) => write!(f, "a {what}, not a regular file"),
            NotRead::DedupOutput => write!(
                f,
                "the output directory of a neardup dedup (give --out outside the input, or \
                 move it)"
            ),
        }
    }
}

/// The result type of this crate.
pub type Result<T> = std::result::Result<T, Error>;

/// What a reading error says to do, by its kind: a missing or forbidden
/// path is the user's to fix; damaged data is the file's.
fn advice(e: &io::Error) -> String {
    match e.kind() {
        // The words say the cause: the system's message would repeat it.
        io::ErrorKind::NotFound => "no such file or directory (check the path)".to_string(),
        io::ErrorKind::PermissionDenied => "not readable (check its permissions)".to_string(),
        io::ErrorKind::InvalidData | io::ErrorKind::UnexpectedEof => format!(
            "the file is damaged or cut short (a compressed file that did not download \
             whole?): {e}"
        ),
        _ => format!("cannot read it: {e}"),
    }
}
