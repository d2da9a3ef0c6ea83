//! The kept rows of Parquet files copied into one Parquet file.
//!
//! Copying ([`ParquetRowWriter`], [`copy_rows`]) decodes every column, a
//! batch at a time, and writes the kept rows with the input's Arrow schema
//! and the first input's key-value metadata, so every value comes out as it
//! went in. The encoding, the compression (zstd) and the row
//! groups (at most [`ROW_GROUP_BYTES`] buffered) are the writer's own.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{BooleanArray, RecordBatch, RecordBatchOptions};
use arrow_schema::{Field, Schema, SchemaRef};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression as Codec, ZstdLevel};
use parquet::file::metadata::KeyValue;
use parquet::file::properties::WriterProperties;

use crate::error::{Error, Result};
use crate::guard::catching;
use crate::parquet::{BATCH_ROWS, decode_error, open, place, unreadable};

/// The most a copy buffers of a row group before writing it out, in bytes.
const ROW_GROUP_BYTES: usize = 128 << 20;

/// Checks, from their footers alone, that Parquet files have the same
/// columns (names, types and nullability, in order), as
/// [`ParquetRowWriter`] needs: a run that will write their kept rows into
/// one file can refuse other files before it reads any row.
///
/// ```
/// use std::sync::Arc;
/// use arrow_array::{Int64Array, RecordBatch, StringArray};
/// use neardup_corpus::check_same_columns;
///
/// let dir = tempfile::tempdir()?;
/// let write = |name: &str, batch: RecordBatch| -> Result<_, Box<dyn std::error::Error>> {
///     let path = dir.path().join(name);
///     let mut w = parquet::arrow::ArrowWriter::try_new(
///         std::fs::File::create(&path)?, batch.schema(), None)?;
///     w.write(&batch)?;
///     w.close()?;
///     Ok(path)
/// };
/// let text = || Arc::new(StringArray::from(vec!["a"])) as _;
/// let a = write("a.parquet", RecordBatch::try_from_iter([("text", text())])?)?;
/// let b = write("b.parquet", RecordBatch::try_from_iter([("text", text())])?)?;
/// let c = write("c.parquet", RecordBatch::try_from_iter([
///     ("text", text()), ("n", Arc::new(Int64Array::from(vec![1])) as _)])?)?;
/// assert!(check_same_columns([a.as_path(), b.as_path()]).is_ok());
/// assert!(check_same_columns([a.as_path(), c.as_path()]).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// [`Error::SchemaMismatch`] naming the first file and the one that
/// differs, or the error of a file that cannot be opened as Parquet.
pub fn check_same_columns<'a>(paths: impl IntoIterator<Item = &'a Path>) -> Result<()> {
    let mut first: Option<(&Path, SchemaRef)> = None;
    for path in paths {
        let schema = catching(|| open(path).map(|b| b.schema().clone()))
            .unwrap_or_else(|panic| Err(unreadable(path, None, &panic)))?;
        match &first {
            None => first = Some((path, schema)),
            Some((first_path, expected)) => {
                if let Some(detail) = difference(expected, &schema) {
                    return Err(Error::SchemaMismatch {
                        place: place(path, None),
                        first: first_path.to_path_buf(),
                        detail,
                    });
                }
            }
        }
    }
    Ok(())
}

/// The first difference between the columns of `first` and `other`, if any
/// (by name, type and nullability; metadata may differ).
fn difference(first: &Schema, other: &Schema) -> Option<String> {
    let describe = |f: &Field| {
        let null = if f.is_nullable() { "" } else { " not null" };
        format!("{:?} {}{null}", f.name(), f.data_type())
    };
    let (a, b) = (first.fields(), other.fields());
    for (i, (x, y)) in a.iter().zip(b.iter()).enumerate() {
        if x.name() != y.name()
            || x.data_type() != y.data_type()
            || x.is_nullable() != y.is_nullable()
        {
            return Some(format!(
                "column {} is {} there, {} here",
                i + 1,
                describe(x),
                describe(y)
            ));
        }
    }
    (a.len() != b.len()).then(|| format!("{} columns there, {} here", a.len(), b.len()))
}

/// Writes the kept rows of Parquet files, one after another, into one
/// Parquet file with the schema of the first (all its columns, every value
/// untouched). Files must have the same columns (names, types and
/// nullability, in order): another file is an
/// [`Error::SchemaMismatch`]. Each file is read a batch of rows at a time.
///
/// ```
/// use std::sync::Arc;
/// use arrow_array::{Int64Array, RecordBatch, StringArray};
/// use neardup_corpus::ParquetRowWriter;
/// use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("a.parquet");
/// let batch = RecordBatch::try_from_iter([
///     ("text", Arc::new(StringArray::from(vec!["one", "two", "three"])) as _),
///     ("n", Arc::new(Int64Array::from(vec![1, 2, 3])) as _),
/// ])?;
/// let mut writer = parquet::arrow::ArrowWriter::try_new(
///     std::fs::File::create(&path)?, batch.schema(), None)?;
/// writer.write(&batch)?;
/// writer.close()?;
///
/// let kept = dir.path().join("kept.parquet");
/// let mut out = ParquetRowWriter::new(std::fs::File::create(&kept)?);
/// assert_eq!(out.copy(&path, |row| row != 2)?, 2);
/// assert_eq!(out.copy(&path, |row| row == 2)?, 1);
/// out.finish()?;
///
/// let rows = ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(&kept)?)?.build()?;
/// let mut n = Vec::new();
/// for batch in rows {
///     let batch = batch?;
///     assert_eq!(batch.schema().field(1).name(), "n");
///     let column = batch.column(1).as_any().downcast_ref::<Int64Array>().unwrap();
///     n.extend(column.values().iter().copied());
/// }
/// assert_eq!(n, [1, 3, 2]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct ParquetRowWriter<W: Write + Send> {
    /// The output, until the first file gives the schema.
    out: Option<W>,
    writer: Option<ArrowWriter<W>>,
    /// The first file copied, and its schema.
    first: Option<(PathBuf, SchemaRef)>,
}

impl<W: Write + Send> ParquetRowWriter<W> {
    /// A writer into `out`. Nothing is written before the first
    /// [`copy`](ParquetRowWriter::copy).
    pub fn new(out: W) -> ParquetRowWriter<W> {
        ParquetRowWriter {
            out: Some(out),
            writer: None,
            first: None,
        }
    }

    /// Copies the rows of the Parquet file `path` whose 1-based numbers
    /// `keep` accepts (it is asked about every row, in order); returns how
    /// many were copied.
    ///
    /// # Errors
    ///
    /// [`Error::Parquet`] for a file that is not Parquet or cannot be
    /// decoded, [`Error::SchemaMismatch`] for columns other than those of
    /// the first file, [`Error::WriteRows`] when writing fails.
    pub fn copy(&mut self, path: &Path, keep: impl FnMut(u64) -> bool) -> Result<u64> {
        catching(|| self.copy_unguarded(path, keep))
            .unwrap_or_else(|panic| Err(unreadable(path, None, &panic)))
    }

    fn copy_unguarded(&mut self, path: &Path, mut keep: impl FnMut(u64) -> bool) -> Result<u64> {
        let builder = open(path)?;
        let schema = builder.schema().clone();
        let write_error = |e: parquet::errors::ParquetError| Error::WriteRows {
            place: place(path, None),
            message: e.to_string(),
        };
        if let Some((first, expected)) = &self.first
            && let Some(detail) = difference(expected, &schema)
        {
            return Err(Error::SchemaMismatch {
                place: place(path, None),
                first: first.clone(),
                detail,
            });
        }
        if self.writer.is_none() {
            let Some(out) = self.out.take() else {
                return Err(write_error(parquet::errors::ParquetError::General(
                    "the writer failed before".to_string(),
                )));
            };
            // The file's key-value metadata (pandas', for example), less
            // the Arrow schema, which the writer adds anew.
            let key_values = builder.metadata().file_metadata().key_value_metadata();
            let key_values: Option<Vec<KeyValue>> = key_values.map(|kvs| {
                kvs.iter()
                    .filter(|kv| kv.key != parquet::arrow::ARROW_SCHEMA_META_KEY)
                    .cloned()
                    .collect()
            });
            let properties = WriterProperties::builder()
                .set_compression(Codec::ZSTD(ZstdLevel::default()))
                .set_max_row_group_bytes(Some(ROW_GROUP_BYTES))
                .set_key_value_metadata(key_values)
                .build();
            let writer =
                ArrowWriter::try_new(out, schema.clone(), Some(properties)).map_err(write_error)?;
            self.writer = Some(writer);
            self.first = Some((path.to_path_buf(), schema.clone()));
        }
        // The output's schema: this file's columns, the first file's metadata.
        let schema = match &self.first {
            Some((_, first)) => Arc::clone(first),
            None => schema,
        };
        let Some(writer) = self.writer.as_mut() else {
            return Err(write_error(parquet::errors::ParquetError::General(
                "the writer failed before".to_string(),
            )));
        };
        let reader = builder
            .with_batch_size(BATCH_ROWS)
            .build()
            .map_err(|e| decode_error(path, 1, e))?;
        let (mut row, mut copied) = (0u64, 0u64);
        for batch in reader {
            let batch = batch.map_err(|e| decode_error(path, row + 1, e))?;
            let first_row = row + 1;
            let flags: Vec<bool> = (0..batch.num_rows())
                .map(|_| {
                    row += 1;
                    keep(row)
                })
                .collect();
            let mask = BooleanArray::from(flags);
            let kept = mask.true_count();
            if kept == 0 {
                continue;
            }
            let batch = if kept == batch.num_rows() {
                batch
            } else {
                arrow_select::filter::filter_record_batch(&batch, &mask)
                    .map_err(|e| decode_error(path, first_row, e))?
            };
            // The output's schema, whose metadata may differ from this file's.
            let batch = RecordBatch::try_new_with_options(
                Arc::clone(&schema),
                batch.columns().to_vec(),
                &RecordBatchOptions::new().with_row_count(Some(kept)),
            )
            .map_err(|e| decode_error(path, first_row, e))?;
            writer.write(&batch).map_err(write_error)?;
            copied += kept as u64;
        }
        Ok(copied)
    }

    /// Finishes the Parquet file (writes its footer) and gives the output
    /// back; if no file was copied, nothing was written to it.
    ///
    /// # Errors
    ///
    /// [`Error::WriteRows`] when writing fails.
    pub fn finish(self) -> Result<W> {
        match (self.writer, self.first, self.out) {
            (Some(writer), Some((first, _)), _) => {
                writer.into_inner().map_err(|e| Error::WriteRows {
                    place: place(&first, None),
                    message: e.to_string(),
                })
            }
            (_, _, Some(out)) => Ok(out),
            _ => Err(Error::WriteRows {
                place: place(Path::new("-"), None),
                message: "the writer failed before".to_string(),
            }),
        }
    }
}

/// Copies the rows of the Parquet file `path` whose 1-based numbers `keep`
/// accepts to `out`, as a Parquet file of the same schema (all columns,
/// every value untouched); returns how many were copied. Several files go
/// into one output with [`ParquetRowWriter`].
///
/// ```
/// use std::sync::Arc;
/// use arrow_array::{RecordBatch, StringArray};
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("a.parquet");
/// let batch = RecordBatch::try_from_iter([
///     ("text", Arc::new(StringArray::from(vec!["one", "two", "three"])) as _),
/// ])?;
/// let mut writer = parquet::arrow::ArrowWriter::try_new(
///     std::fs::File::create(&path)?, batch.schema(), None)?;
/// writer.write(&batch)?;
/// writer.close()?;
///
/// let kept = dir.path().join("kept.parquet");
/// let copied = neardup_corpus::copy_rows(&path, |row| row != 2, std::fs::File::create(&kept)?)?;
/// assert_eq!(copied, 2);
/// let options = neardup_corpus::ReadOptions::default();
/// let corpus = neardup_corpus::Corpus::open(&[&kept], &options)?;
/// let texts: Vec<String> = corpus.documents().map(|d| d.map(|d| d.text)).collect::<Result<_, _>>()?;
/// assert_eq!(texts, ["one", "three"]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// As [`ParquetRowWriter::copy`] and [`ParquetRowWriter::finish`].
pub fn copy_rows(
    path: &Path,
    keep: impl FnMut(u64) -> bool,
    out: impl Write + Send,
) -> Result<u64> {
    let mut writer = ParquetRowWriter::new(out);
    let copied = writer.copy(path, keep)?;
    writer.finish()?;
    Ok(copied)
}
