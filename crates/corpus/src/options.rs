//! How inputs are read.

/// The format of an input file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Format {
    /// By extension (after `.gz`/`.zst`): `.jsonl` and `.ndjson` are JSON
    /// lines, `.parquet` is Parquet, `.csv` and `.tsv` are [`Format::Csv`],
    /// anything else (and stdin) is text.
    #[default]
    Auto,
    /// One JSON object per line.
    JsonLines,
    /// Plain text: one document per file, or per line with
    /// [`ReadOptions::lines`].
    Text,
    /// Parquet: one document per row, the text in the column
    /// [`ReadOptions::text_field`]. Read from files only, not stdin, and not
    /// from a `.gz` or `.zst` (Parquet compresses inside).
    Parquet,
    /// Comma- or tab-separated values: not read (yet), and refused rather
    /// than taken for text, whose header row would become a document. Give
    /// [`Format::Text`] to read such a file as text after all.
    Csv,
}

impl Format {
    /// The format `path` is read in: this one, or for [`Format::Auto`] the
    /// one its name gives.
    ///
    /// ```
    /// use std::path::Path;
    /// use neardup_corpus::Format;
    ///
    /// assert_eq!(Format::Auto.of(Path::new("a.ndjson.gz")), Format::JsonLines);
    /// assert_eq!(Format::Auto.of(Path::new("part-0.parquet")), Format::Parquet);
    /// assert_eq!(Format::Auto.of(Path::new("notes.md")), Format::Text);
    /// assert_eq!(Format::Text.of(Path::new("a.jsonl")), Format::Text);
    /// ```
    pub fn of(self, path: &std::path::Path) -> Format {
        crate::open::sniff(path, self).1
    }
}

/// Settings for reading documents.
///
/// ```
/// use neardup_corpus::{Format, ReadOptions};
///
/// let mut options = ReadOptions::default();
/// options.format(Format::JsonLines).text_field("body").id_field("url");
/// assert_eq!(options.max_bytes_value(), 256 << 20);
/// ```
#[derive(Clone, Debug)]
pub struct ReadOptions {
    pub(crate) format: Format,
    pub(crate) text_field: String,
    pub(crate) id_field: String,
    pub(crate) extra_field: Option<String>,
    pub(crate) lines: bool,
    pub(crate) max_bytes: u64,
}

impl Default for ReadOptions {
    fn default() -> ReadOptions {
        ReadOptions {
            format: Format::Auto,
            text_field: "text".to_string(),
            id_field: "id".to_string(),
            extra_field: None,
            lines: false,
            max_bytes: 256 << 20,
        }
    }
}

impl ReadOptions {
    /// The input format. Default: [`Format::Auto`].
    pub fn format(&mut self, format: Format) -> &mut ReadOptions {
        self.format = format;
        self
    }

    /// The JSON field (or Parquet column) holding the text. Default: `text`.
    pub fn text_field(&mut self, name: &str) -> &mut ReadOptions {
        self.text_field = name.to_string();
        self
    }

    /// The JSON field (or Parquet column, of strings or integers) holding
    /// the id; records without it are named `FILE:LINE` (`FILE:ROW` for
    /// Parquet). Default: `id`.
    pub fn id_field(&mut self, name: &str) -> &mut ReadOptions {
        self.id_field = name.to_string();
        self
    }

    /// One more JSON field (or Parquet column) to read, into
    /// [`Document::extra`](crate::Document::extra) (a number or a string;
    /// absent or `null` gives `None`; Parquet dates and timestamps are
    /// numbers, in their own unit). Default: none.
    ///
    /// ```
    /// use neardup_corpus::{Corpus, FieldValue, ReadOptions};
    ///
    /// let dir = tempfile::tempdir()?;
    /// std::fs::write(dir.path().join("a.jsonl"), "{\"text\": \"hi\", \"score\": 0.5}\n")?;
    /// let corpus = Corpus::open(&[dir.path()], ReadOptions::default().extra_field("score"))?;
    /// let doc = corpus.documents().next().unwrap()?;
    /// assert_eq!(doc.extra, Some(FieldValue::Number(0.5)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn extra_field(&mut self, name: &str) -> &mut ReadOptions {
        self.extra_field = Some(name.to_string());
        self
    }

    /// Whether each line of a text file is a document (blank lines are
    /// skipped). Default: no, the whole file is one document.
    pub fn lines(&mut self, yes: bool) -> &mut ReadOptions {
        self.lines = yes;
        self
    }

    /// The largest document accepted, in bytes. Default: 256 MiB.
    pub fn max_bytes(&mut self, bytes: u64) -> &mut ReadOptions {
        self.max_bytes = bytes;
        self
    }

    /// The largest document accepted, in bytes.
    pub fn max_bytes_value(&self) -> u64 {
        self.max_bytes
    }

    /// The input format set ([`Format::Auto`]: each file's by its name).
    ///
    /// ```
    /// use neardup_corpus::{Format, ReadOptions};
    ///
    /// assert_eq!(ReadOptions::default().format_value(), Format::Auto);
    /// ```
    pub fn format_value(&self) -> Format {
        self.format
    }
}
