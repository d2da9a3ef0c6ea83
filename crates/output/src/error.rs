//! What can stop a dedup run over files, or the writing of an output.

use std::io;
use std::path::{Path, PathBuf};

/// An error of a dedup run over files ([`crate::DedupRun`]) or of an
/// output written whole ([`crate::write_atomically`]). Each case names the
/// file, directory or option at fault; a refusal says what to do.
///
/// ```
/// use std::path::PathBuf;
/// use neardup_output::Error;
///
/// let err = Error::OutNotEmpty { out: PathBuf::from("deduped") };
/// assert_eq!(
///     err.to_string(),
///     "--out deduped: the directory is not empty; give an empty or new one, or --force"
/// );
/// assert!(!err.is_io());
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A step on a file or directory that failed: what was being done
    /// (`cannot write`, `reading … again`), where, and why.
    #[error("{doing} {}", path.display())]
    At {
        /// What was being done, as the message begins it.
        doing: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// Why it failed.
        #[source]
        source: Box<Error>,
    },
    /// An index directory given with an option (`--against`,
    /// `--save-index`) that could not be used.
    #[error("{option} {}", dir.display())]
    Index {
        /// The option.
        option: &'static str,
        /// The directory.
        dir: PathBuf,
        /// Why.
        #[source]
        source: Box<Error>,
    },
    /// The dedup job failed.
    #[error("dedup{}", against_note(against.as_deref()))]
    Job {
        /// The index directory the job ran against, if any.
        against: Option<PathBuf>,
        /// The job's error.
        #[source]
        source: Box<neardup_dedup::Error>,
    },
    /// Reading or writing failed.
    #[error(transparent)]
    Io(#[from] io::Error),
    /// A JSON output could not be written.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// The inputs could not be opened, listed or copied.
    #[error(transparent)]
    Read(#[from] neardup_corpus::Error),
    /// The store of an index directory failed or refused.
    #[error(transparent)]
    Store(#[from] neardup_store::Error),
    /// A directory locked by another writer.
    #[error(transparent)]
    Lock(#[from] neardup_index::Error),
    /// The standard input given as an input: a run reads its inputs twice.
    #[error(
        "dedup reads its inputs twice (once to fingerprint, once to copy what is kept): give \
         files, not -"
    )]
    Stdin,
    /// An input file whose name holds a line break, which `unique.txt`
    /// cannot list.
    #[error(
        "{path:?}: a file name with a line break cannot be listed in unique.txt (one path a \
         line); rename it"
    )]
    LineBreakInName {
        /// The file.
        path: PathBuf,
    },
    /// An output that is one of the inputs.
    #[error("{} is an input; write the {} to another {}", path.display(),
        if *directory { "outputs" } else { "output" },
        if *directory { "directory" } else { "file" })]
    InputAsOutput {
        /// The input.
        path: PathBuf,
        /// Whether the outputs are a directory's (else one file).
        directory: bool,
    },
    /// An `--out` that is a file.
    #[error("--out {}: not a directory", out.display())]
    OutNotDirectory {
        /// The path given.
        out: PathBuf,
    },
    /// An `--out` that holds an earlier run's outputs or other files,
    /// without `--force`.
    #[error(
        "--out {}: the directory is not empty; give an empty or new one, or --force",
        out.display()
    )]
    OutNotEmpty {
        /// The directory.
        out: PathBuf,
    },
    /// The lock file of `--out`, replaced by other runs each time it was
    /// taken.
    #[error(
        "cannot lock {}: other runs keep replacing it; run one dedup into {} at a time",
        lock.display(),
        out.display()
    )]
    LockReplaced {
        /// The lock file.
        lock: PathBuf,
        /// The directory.
        out: PathBuf,
    },
    /// An index whose fingerprints were made with other settings.
    #[error(
        "{option} {}: its fingerprints were made with other settings ({differences}); fingerprints \
         of different settings cannot be compared: use the index's settings, or another index",
        dir.display()
    )]
    OtherSettings {
        /// The option that named the index.
        option: &'static str,
        /// The index directory.
        dir: PathBuf,
        /// Each setting that differs, theirs and ours, joined by `; `.
        differences: String,
    },
    /// The thread that copies the kept records stopped without an answer
    /// (a bug).
    #[error("writing the unique records failed")]
    Writer,
    /// A document of no input file (a bug).
    #[error("a document names no input file (file {file}); this is a bug")]
    NoSuchFile {
        /// The file number it named.
        file: usize,
    },
}

impl Error {
    /// `source` with what was being done on `path`.
    pub(crate) fn at(doing: &'static str, path: &Path, source: impl Into<Error>) -> Error {
        Error::At {
            doing,
            path: path.to_path_buf(),
            source: Box::new(source.into()),
        }
    }

    /// `source` with the option and index directory it concerns.
    pub(crate) fn index(option: &'static str, dir: &Path, source: impl Into<Error>) -> Error {
        Error::Index {
            option,
            dir: dir.to_path_buf(),
            source: Box::new(source.into()),
        }
    }

    /// Whether a file or directory could not be read or written (rather
    /// than a refusal, or an input or setting at fault).
    pub fn is_io(&self) -> bool {
        match self {
            Error::Io(_) => true,
            Error::At { source, .. } | Error::Index { source, .. } => source.is_io(),
            Error::Store(e) => !e.is_input(),
            Error::Lock(neardup_index::Error::Io(..)) => true,
            _ => false,
        }
    }

    /// The error of the dedup job, if it is one: where the job's own
    /// cases ([`neardup_dedup::Error::Cancelled`], …) are.
    pub fn job_error(&self) -> Option<&neardup_dedup::Error> {
        match self {
            Error::Job { source, .. } => Some(source),
            Error::At { source, .. } | Error::Index { source, .. } => source.job_error(),
            _ => None,
        }
    }

    /// The error of reading the inputs, if it is one (the inputs opened,
    /// or a record read during the job): what a front adds its option to.
    pub fn read_error(&self) -> Option<&neardup_corpus::Error> {
        match self {
            Error::Read(e) => Some(e),
            Error::Job { source, .. } => match source.as_ref() {
                neardup_dedup::Error::Read(e) => Some(e),
                _ => None,
            },
            Error::At { source, .. } | Error::Index { source, .. } => source.read_error(),
            _ => None,
        }
    }
}

/// `error`'s message with its causes, each once (some errors repeat
/// their cause in their own message), joined by `: `: what a front shows,
/// or a warning says.
///
/// ```
/// use neardup_dedup::{Dedup, Silent};
/// use neardup_output::{DedupRun, with_causes};
///
/// let dir = tempfile::tempdir()?;
/// let run = DedupRun::builder(vec![dir.path().join("missing")], dir.path().join("out"), Dedup::new()?).build();
/// let err = run.run(&Silent).unwrap_err();
/// assert!(with_causes(&err).contains("missing"), "{}", with_causes(&err));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn with_causes(error: &dyn std::error::Error) -> String {
    let mut message = error.to_string();
    let mut cause = error.source();
    while let Some(c) = cause {
        let text = c.to_string();
        if !message.ends_with(&text) {
            message.push_str(": ");
            message.push_str(&text);
        }
        cause = c.source();
    }
    message
}

/// An error of the job outside its run (the inputs read again, the kept
/// documents indexed): the job's, in the chain of causes.
impl From<neardup_dedup::Error> for Error {
    fn from(source: neardup_dedup::Error) -> Error {
        Error::Job {
            against: None,
            source: Box::new(source),
        }
    }
}

/// ` (--against DIR)` when the job ran against an index.
fn against_note(against: Option<&Path>) -> String {
    against.map_or_else(String::new, |dir| format!(" (--against {})", dir.display()))
}

/// The result of this crate's operations.
pub type Result<T> = std::result::Result<T, Error>;
