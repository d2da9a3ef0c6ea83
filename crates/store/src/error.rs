//! What can go wrong in the store.

use std::path::PathBuf;

use crate::write::Written;

/// An error of the store. The cases up to [`Error::PartialBatch`] are
/// requests the store cannot take ([`Error::is_input`]); the others, a
/// store that cannot be used.
///
/// ```
/// use neardup_store::Error;
///
/// let err = Error::IdTaken { id: "a".into() };
/// assert_eq!(err.to_string(), "the name \"a\" is already in the index; names are unique");
/// assert!(err.is_input());
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A directory with no store in it, opened without the settings to
    /// create one, or to read.
    #[error("{} holds no store; create one by giving its settings", dir.display())]
    NoStore {
        /// The directory.
        dir: PathBuf,
    },
    /// A directory with no index in it, to search or add to.
    #[error(
        "{} holds no index: make one with neardup index build (or dedup --save-index)",
        dir.display()
    )]
    NoIndex {
        /// The directory.
        dir: PathBuf,
    },
    /// A directory that holds an index already, where a new one was to be
    /// made.
    #[error(
        "{} already holds an index; open it to add to it, or remove it first",
        dir.display()
    )]
    AlreadyExists {
        /// The directory.
        dir: PathBuf,
    },
    /// An id that a stored document has.
    #[error("the name {id:?} is already in the index; names are unique")]
    IdTaken {
        /// The id.
        id: String,
    },
    /// A document to insert without an id, where ids are needed.
    #[error("a document without an id")]
    MissingId,
    /// Ids and fingerprints that do not pair up.
    #[error("{ids} ids for {fingerprints} fingerprints")]
    IdsMismatch {
        /// The ids given.
        ids: usize,
        /// The fingerprints given.
        fingerprints: usize,
    },
    /// A search further than the store's tables reach.
    #[error("a distance of {k} bits: this store finds documents at most {most} bits apart")]
    KBeyondStore {
        /// The distance asked for.
        k: u32,
        /// The store's k.
        most: u32,
    },
    /// Settings that differ from those the store was made with.
    #[error(
        "the store in {} has other settings: {differences}; open it with its own, or make a \
         new store",
        dir.display()
    )]
    OtherSettings {
        /// The store's directory.
        dir: PathBuf,
        /// The settings that differ, theirs and ours.
        differences: String,
    },
    /// A store opened at another fingerprint width than its own.
    #[error("the store in {} holds {bits}-bit fingerprints", dir.display())]
    WidthMismatch {
        /// The store's directory.
        dir: PathBuf,
        /// The store's width, in bits.
        bits: u32,
    },
    /// A write through a store opened to read only.
    #[error(
        "the store in {} is open for reading only (another neardup writes it): write \
         through that one",
        dir.display()
    )]
    ReadOnly {
        /// The store's directory.
        dir: PathBuf,
    },
    /// A batch of which some writes were refused.
    #[error("the batch {label:?} was stored in part: {written:?}; undo it")]
    PartialBatch {
        /// The batch's label.
        label: String,
        /// The first write that was not an insert.
        written: Box<Written>,
    },
    /// A file of the store that cannot be read or written.
    #[error("{}: {}", .0.display(), .1)]
    Io(PathBuf, std::io::Error),
    /// A store file that is not what this build writes, or is damaged.
    #[error("{}: {}", .0.display(), .1)]
    Format(PathBuf, Damage),
    /// The transactional log failed (redb's error says how).
    #[error("{}: {}", .0.display(), .1)]
    Log(PathBuf, redb::Error),
    /// The index of fingerprints failed.
    #[error(transparent)]
    Index(#[from] neardup_index::Error),
}

impl Error {
    /// Whether the request was refused (an id, a count, a distance, the
    /// settings, a directory without a store), not the store unusable.
    pub fn is_input(&self) -> bool {
        !matches!(
            self,
            Error::Io(..) | Error::Format(..) | Error::Log(..) | Error::Index(_)
        )
    }
}

/// What is wrong with a store file ([`Error::Format`]): written by another
/// layout, or damaged.
///
/// ```
/// use neardup_store::Damage;
///
/// let damage = Damage::NoRecord { id: "a".into() };
/// assert_eq!(damage.to_string(), "recent document \"a\" has no record");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Damage {
    /// An index directory of neardup before the store.
    #[error(
        "an index of an earlier layout, before the store: rebuild it with neardup index build \
         (or dedup --save-index)"
    )]
    EarlierLayout,
    /// A store of a layout this build does not read.
    #[error(
        "a store of layout {}; this neardup reads layouts {} and {}",
        found.as_deref().unwrap_or("(none named)"),
        crate::log::FORMER_LAYOUTS.join(", "),
        crate::STORE_LAYOUT
    )]
    Layout {
        /// The layout the manifest names, if any.
        found: Option<String>,
    },
    /// A manifest entry that cannot be read.
    #[error("its manifest's {entry} {value:?} is not {expected}")]
    Manifest {
        /// The entry (`segments`, `next_seq`, …).
        entry: String,
        /// What it holds.
        value: String,
        /// What it should be.
        expected: &'static str,
    },
    /// A manifest without the store's settings.
    #[error("its manifest names no settings")]
    NoSettings,
    /// Settings that cannot be read.
    #[error("its settings {text:?} cannot be read: {reason}")]
    Settings {
        /// The settings as recorded.
        text: String,
        /// Why they cannot be read.
        reason: String,
    },
    /// A document's record that cannot be decoded.
    #[error("the record of document {id:?} is damaged")]
    Record {
        /// The document's id.
        id: String,
    },
    /// A recent document without a record.
    #[error("recent document {id:?} has no record")]
    NoRecord {
        /// The document's id.
        id: String,
    },
    /// A log that a writer left open, still unreadable after the repair
    /// made for it.
    #[error("it still needs a repair after one was made: restore the store from a copy")]
    NeedsRepair,
    /// A file named as the write-ahead log that is not one.
    #[error("it is not a write-ahead log of a store: restore the store from a copy")]
    NotWal,
    /// A record of the write-ahead log that is damaged (its checksum
    /// fails, with whole records after it) or whose changes cannot be
    /// read.
    #[error("its record {record} cannot be read: restore the store from a copy")]
    WalRecord {
        /// The record's place in the log, from 0.
        record: usize,
    },
    /// A stored document that no index finds.
    #[error("document {id:?} is stored but not indexed")]
    NotIndexed {
        /// The document's id.
        id: String,
    },
}

/// The result of store operations.
pub type Result<T> = std::result::Result<T, Error>;
