//! The inputs of a run, expanded to files, and the stream of their documents.

use std::io::{BufRead, Read};
use std::path::{Path, PathBuf};

use crate::error::{Error, NotRead, Place, Result};
use crate::json_lines::{self, Field};
use crate::open::{Compression, is_stdin, open, read_line_capped, sniff};
use crate::options::{Format, ReadOptions};
use crate::parquet::ParquetRows;

/// The UTF-8 byte-order mark, which some editors put at the start of files.
const BOM: &[u8] = b"\xef\xbb\xbf";

/// Bytes looked at for a NUL byte before a text file is read as text.
const BINARY_PROBE: usize = 8 << 10;

/// One document read from the inputs.
#[derive(Clone, Debug, PartialEq)]
pub struct Document {
    /// Its id: the JSON id field (Parquet id column), else `FILE:LINE` for
    /// line-based formats (`FILE:ROW` for Parquet), else the file's path.
    pub id: String,
    /// Its text.
    pub text: String,
    /// Where it was read.
    pub place: Place,
    /// The byte offset of its record in the (decompressed) input; for
    /// Parquet, the 0-based index of its row.
    pub offset: u64,
    /// The value of [`ReadOptions::extra_field`], if asked for and present.
    pub extra: Option<FieldValue>,
}

/// The value of a JSON field (or Parquet column) read besides the text and
/// the id.
#[derive(Clone, Debug, PartialEq)]
pub enum FieldValue {
    /// A number.
    Number(f64),
    /// A string.
    Text(String),
}

/// A file to read, and the input it was found under.
#[derive(Clone, Debug)]
pub(crate) struct InputFile {
    pub(crate) path: PathBuf,
    /// Index of the input (as given) this file came from.
    pub(crate) root: usize,
    /// Whether it was found by walking a directory (binary files found so are
    /// skipped, not errors).
    pub(crate) walked: bool,
    /// Why an entry found by walking is not read; its place in the stream
    /// is an [`Error::NotRead`], counted as the other skipped entries are.
    pub(crate) not_read: Option<NotRead>,
}

/// The inputs of a run: files, directories (walked recursively, hidden
/// entries skipped, in name order) and `-` for stdin.
///
/// A walked directory's entries are each read or counted: symbolic links
/// are followed, and the entries not read (a link in a circle or to
/// nothing, a link to what the input holds anyway, a FIFO, socket or
/// device, a dedup's output directory) come in the stream as
/// [`Error::NotRead`], which a run skips and counts.
///
/// ```
/// use neardup_corpus::{Corpus, ReadOptions};
///
/// let dir = tempfile::tempdir()?;
/// std::fs::write(dir.path().join("a.jsonl"), "{\"id\": \"x\", \"text\": \"hello\"}\n")?;
/// std::fs::write(dir.path().join("b.txt"), "a whole file")?;
/// let corpus = Corpus::open(&[dir.path()], &ReadOptions::default())?;
/// let docs: Vec<_> = corpus.documents().collect::<Result<_, _>>()?;
/// assert_eq!(docs[0].id, "x");
/// assert_eq!(docs[1].text, "a whole file");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Corpus {
    roots: Vec<PathBuf>,
    files: Vec<InputFile>,
    options: ReadOptions,
}

impl Corpus {
    /// Expands `paths` into the files to read.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] for a path that does not exist or a directory that
    /// cannot be walked; [`Error::NoDocuments`] for a directory without
    /// files.
    pub fn open<P: AsRef<Path>>(paths: &[P], options: &ReadOptions) -> Result<Corpus> {
        let mut files = Vec::new();
        let mut roots = Vec::new();
        for (root, path) in paths.iter().enumerate() {
            let path = path.as_ref();
            roots.push(path.to_path_buf());
            let place = || Place {
                path: path.to_path_buf(),
                line: None,
            };
            if is_stdin(path) {
                files.push(InputFile {
                    path: path.to_path_buf(),
                    root,
                    walked: false,
                    not_read: None,
                });
                continue;
            }
            let meta = std::fs::metadata(path).map_err(|e| Error::io(place(), e))?;
            if !meta.is_dir() {
                files.push(InputFile {
                    path: path.to_path_buf(),
                    root,
                    walked: false,
                    not_read: None,
                });
                continue;
            }
            let before = files.len();
            crate::walk::walk(path, root, &mut files)?;
            if files.len() == before {
                return Err(Error::NoDocuments {
                    place: place(),
                    detail: " (it holds no files)".to_string(),
                });
            }
        }
        Ok(Corpus {
            roots,
            files,
            options: options.clone(),
        })
    }

    /// The files that will be read, in order (the entries of a directory
    /// that are not read, [`Error::NotRead`], left out).
    pub fn files(&self) -> impl Iterator<Item = &Path> {
        self.files
            .iter()
            .filter(|f| f.not_read.is_none())
            .map(|f| f.path.as_path())
    }

    /// The total size of the files on disk (compressed size for compressed
    /// files and Parquet), or `None` when reading stdin.
    pub fn total_bytes(&self) -> Option<u64> {
        self.files
            .iter()
            .filter(|f| f.not_read.is_none())
            .map(|f| {
                if is_stdin(&f.path) {
                    None
                } else {
                    std::fs::metadata(&f.path).ok().map(|m| m.len())
                }
            })
            .sum()
    }

    /// The documents of all inputs, in order. Errors are yielded in place
    /// of the records they concern; reading goes on after a record error.
    pub fn documents(&self) -> Documents<'_> {
        Documents {
            corpus: self,
            next_file: 0,
            current: None,
            per_root: vec![0; self.roots.len()],
            skipped_binary: vec![0; self.roots.len()],
            pending_end: None,
            buf: Vec::new(),
            parquet: None,
        }
    }
}

/// The stream of a file being read line by line.
struct LineState {
    reader: Box<dyn BufRead + Send>,
    place: Place,
    format: Format,
    line: u64,
    offset: u64,
    /// Records met so far (lines other than blank ones).
    records: u64,
}

/// Iterator over the documents of a [`Corpus`].
pub struct Documents<'a> {
    corpus: &'a Corpus,
    next_file: usize,
    current: Option<LineState>,
    per_root: Vec<u64>,
    skipped_binary: Vec<u64>,
    /// Roots to check for emptiness once reading is done.
    pending_end: Option<usize>,
    buf: Vec<u8>,
    /// The Parquet file being read, if any.
    parquet: Option<Box<ParquetRows>>,
}

impl Documents<'_> {
    /// The number of binary files skipped while walking directories.
    pub fn skipped_binary_files(&self) -> u64 {
        self.skipped_binary.iter().sum()
    }

    fn options(&self) -> &ReadOptions {
        &self.corpus.options
    }

    /// The next record of the current line-based file, if any.
    fn next_line(&mut self) -> Option<Result<Document>> {
        let limit = self.options().max_bytes;
        let state = self.current.as_mut()?;
        loop {
            let read = match read_line_capped(state.reader.as_mut(), &mut self.buf, limit) {
                Ok(r) => r,
                Err(e) => {
                    let place = state.place.clone();
                    self.current = None;
                    return Some(Err(Error::io(place, e)));
                }
            };
            if read.consumed == 0 {
                let empty = state.records == 0;
                let place = state.place.clone();
                self.current = None;
                return empty.then_some(Err(Error::EmptyFile { place }));
            }
            state.line += 1;
            let offset = state.offset;
            state.offset += read.consumed;
            let place = Place {
                path: state.place.path.clone(),
                line: Some(state.line),
            };
            if read.endless {
                self.current = None;
                return Some(Err(Error::EndlessLine { place, limit }));
            }
            if read.too_long {
                state.records += 1;
                return Some(Err(Error::TooLarge {
                    place,
                    size: read.len,
                    limit,
                }));
            }
            // A byte-order mark at the start of a file is not text.
            if state.line == 1 && self.buf.starts_with(BOM) {
                self.buf.drain(..BOM.len());
            }
            if self.buf.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            state.records += 1;
            let line = match std::str::from_utf8(&self.buf) {
                Ok(line) => line,
                Err(e) => {
                    return Some(Err(Error::Utf8 {
                        place,
                        offset: e.valid_up_to() as u64,
                    }));
                }
            };
            let format = state.format;
            return Some(match format {
                Format::JsonLines => json_record(line, place, offset, self.options()),
                _ => Ok(Document {
                    id: place.to_string(),
                    text: line.to_string(),
                    place,
                    offset,
                    extra: None,
                }),
            });
        }
    }

    /// Opens the next file: a whole-file document, or the start of a
    /// line-based one.
    fn open_next(&mut self) -> Option<Opened> {
        let file = self.corpus.files.get(self.next_file)?.clone();
        self.next_file += 1;
        let (compression, format) = sniff(&file.path, self.options().format);
        let place = Place {
            path: file.path.clone(),
            line: None,
        };
        if let Some(reason) = file.not_read {
            return Some(Opened::Item(Err(Error::NotRead { place, reason })));
        }
        if format == Format::Csv {
            return Some(Opened::Item(Err(Error::Unsupported {
                place,
                message: "comma- or tab-separated values are not read as such: convert them \
                          to JSON lines (one object per row, the text in a field), or give \
                          --format text to read the file as text"
                    .to_string(),
                walked: file.walked,
            })));
        }
        if format == Format::Parquet {
            // Never probed for NUL bytes: Parquet is binary.
            return Some(match ParquetRows::open(&file.path, self.options()) {
                Ok(rows) => {
                    self.parquet = Some(Box::new(rows));
                    Opened::Lines
                }
                Err(e) => Opened::Item(Err(e)),
            });
        }
        let mut reader = match open(&file.path, compression) {
            Ok(r) => r,
            Err(e) => return Some(Opened::Item(Err(Error::io(place, e)))),
        };
        let line_based = format == Format::JsonLines || self.options().lines;
        if format != Format::JsonLines {
            match probe_binary(reader.as_mut()) {
                Ok(None) => {}
                Ok(Some(offset)) if file.walked => {
                    self.skipped_binary[file.root] += 1;
                    return Some(Opened::Item(Err(Error::BinaryInDirectory {
                        place,
                        offset,
                    })));
                }
                Ok(Some(offset)) => {
                    return Some(Opened::Item(Err(Error::Binary { place, offset })));
                }
                Err(e) => return Some(Opened::Item(Err(Error::io(place, e)))),
            }
        }
        if line_based {
            self.current = Some(LineState {
                reader,
                place,
                format,
                line: 0,
                offset: 0,
                records: 0,
            });
            return Some(Opened::Lines);
        }
        Some(Opened::Item(read_whole(
            reader,
            place,
            compression,
            self.options().max_bytes,
        )))
    }
}

/// What opening a file gives.
enum Opened {
    /// A whole-file document, or an error.
    Item(Result<Document>),
    /// A line-based or Parquet file, now current.
    Lines,
}

impl Iterator for Documents<'_> {
    type Item = Result<Document>;

    fn next(&mut self) -> Option<Result<Document>> {
        loop {
            if let Some(rows) = self.parquet.as_mut() {
                match rows.next_document() {
                    Some(item) => {
                        if matches!(&item, Err(e) if !e.is_record()) {
                            self.parquet = None;
                        }
                        return Some(self.count(item));
                    }
                    None => {
                        self.parquet = None;
                        continue;
                    }
                }
            }
            if self.current.is_some() {
                if let Some(item) = self.next_line() {
                    return Some(self.count(item));
                }
                continue;
            }
            match self.open_next() {
                Some(Opened::Item(item)) => return Some(self.count(item)),
                Some(Opened::Lines) => continue,
                None => {}
            }
            // All files read: report directories that gave nothing.
            let start = self.pending_end.unwrap_or(0);
            for root in start..self.corpus.roots.len() {
                let path = &self.corpus.roots[root];
                if self.per_root[root] == 0 && path.is_dir() {
                    self.pending_end = Some(root + 1);
                    let binary = self.skipped_binary[root];
                    return Some(Err(Error::NoDocuments {
                        place: Place {
                            path: path.clone(),
                            line: None,
                        },
                        detail: if binary == 1 {
                            " (1 binary file skipped)".to_string()
                        } else if binary > 1 {
                            format!(" ({binary} binary files skipped)")
                        } else {
                            String::new()
                        },
                    }));
                }
            }
            self.pending_end = Some(self.corpus.roots.len());
            return None;
        }
    }
}

impl Documents<'_> {
    /// Counts a document of the current file, or makes a blank one an
    /// error: blank documents would all be exact copies of each other.
    fn count(&mut self, item: Result<Document>) -> Result<Document> {
        let item = match item {
            Ok(doc) if doc.text.trim().is_empty() => Err(match doc.place.line {
                None => Error::EmptyFile { place: doc.place },
                Some(_) => Error::BlankText { place: doc.place },
            }),
            item => item,
        };
        if item.is_ok() {
            let file = self.next_file.saturating_sub(1);
            if let Some(f) = self.corpus.files.get(file) {
                self.per_root[f.root] += 1;
            }
        }
        item
    }
}

/// The offset of a NUL byte in the first bytes of `reader`, without
/// consuming them.
fn probe_binary(reader: &mut dyn BufRead) -> std::io::Result<Option<u64>> {
    let head = reader.fill_buf()?;
    let head = &head[..head.len().min(BINARY_PROBE)];
    Ok(memchr::memchr(0, head).map(|i| i as u64))
}

fn read_whole(
    reader: Box<dyn BufRead + Send>,
    place: Place,
    compression: Compression,
    limit: u64,
) -> Result<Document> {
    if compression == Compression::None
        && !is_stdin(&place.path)
        && let Ok(meta) = std::fs::metadata(&place.path)
        && meta.len() > limit
    {
        return Err(Error::TooLarge {
            place,
            size: meta.len(),
            limit,
        });
    }
    let mut bytes = Vec::new();
    if let Err(e) = reader.take(limit + 1).read_to_end(&mut bytes) {
        return Err(Error::io(place, e));
    }
    if bytes.len() as u64 > limit {
        return Err(Error::TooLarge {
            place,
            size: bytes.len() as u64,
            limit,
        });
    }
    if bytes.starts_with(BOM) {
        bytes.drain(..BOM.len());
    }
    match String::from_utf8(bytes) {
        Ok(text) => Ok(Document {
            id: place.path.display().to_string(),
            text,
            place,
            offset: 0,
            extra: None,
        }),
        Err(e) => {
            let offset = e.utf8_error().valid_up_to();
            let line = e.as_bytes()[..offset]
                .iter()
                .filter(|b| **b == b'\n')
                .count() as u64
                + 1;
            Err(Error::Utf8 {
                place: Place {
                    line: Some(line),
                    ..place
                },
                offset: offset as u64,
            })
        }
    }
}

fn json_record(line: &str, place: Place, offset: u64, options: &ReadOptions) -> Result<Document> {
    let record = match json_lines::parse(
        line,
        &options.text_field,
        &options.id_field,
        options.extra_field.as_deref(),
    ) {
        Ok(r) => r,
        // The place names the line already; serde's own line is always 1.
        Err(message) => {
            return Err(Error::Json {
                place,
                message: message.replace(" at line 1 column ", " at column "),
            });
        }
    };
    let text = match record.text {
        Some(Field::Text(t)) => t,
        Some(Field::Number(_)) => {
            return Err(Error::FieldType {
                place,
                field: options.text_field.clone(),
                found: "a number",
                expected: "a string",
            });
        }
        Some(Field::Other(found)) => {
            return Err(Error::FieldType {
                place,
                field: options.text_field.clone(),
                found,
                expected: "a string",
            });
        }
        None => {
            let names = json_lines::field_names(line);
            let hint = if names.is_empty() {
                " (the object is empty)".to_string()
            } else {
                format!(" (it has: {})", names.join(", "))
            };
            return Err(Error::MissingField {
                place,
                field: options.text_field.clone(),
                hint,
            });
        }
    };
    let id = match record.id {
        Some(Field::Text(id) | Field::Number(id)) => id,
        _ => place.to_string(),
    };
    let extra = match record.extra {
        None | Some(Field::Other("null")) => None,
        Some(Field::Text(t)) => Some(FieldValue::Text(t)),
        Some(Field::Number(n)) => n.parse().ok().map(FieldValue::Number),
        Some(Field::Other(found)) => {
            return Err(Error::FieldType {
                place,
                field: options.extra_field.clone().unwrap_or_default(),
                found,
                expected: "a number or a string",
            });
        }
    };
    Ok(Document {
        id,
        text,
        place,
        offset,
        extra,
    })
}

#[cfg(test)]
mod tests;
