//! Parquet files: read as one document per row, and their kept rows copied
//! into one Parquet file.
//!
//! Reading decodes only the columns it needs (the text column, and the id
//! and extra columns when the file has them), [`BATCH_ROWS`] rows at a time,
//! so memory is bounded by a batch whatever the size of the file. Rows are
//! numbered from 1 across the whole file (all row groups): a document's
//! place is `FILE:ROW`, its id the id column's value or `FILE:ROW`, and its
//! [`offset`](crate::Document::offset) the 0-based row index.
//!
//! Copying ([`ParquetRowWriter`], [`copy_rows`]) decodes every column, a
//! batch at a time, and writes the kept rows with the input's Arrow schema
//! and the first input's key-value metadata, so every value comes out as it
//! went in. The encoding, the compression (zstd) and the row
//! groups (at most [`ROW_GROUP_BYTES`] buffered) are the writer's own.
//!
//! Limits: Parquet needs to seek, so it is read from files only, not from
//! stdin nor through `.gz`/`.zst`; only top-level columns can be named;
//! the text column holds strings (`Utf8`, `LargeUtf8`, `Utf8View`) or
//! UTF-8 bytes (`Binary`, `LargeBinary`, `BinaryView`).

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Date64Type, Float32Type, Float64Type, Int8Type, Int16Type, Int32Type, Int64Type,
    TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType,
    TimestampSecondType, UInt8Type, UInt16Type, UInt32Type, UInt64Type,
};
use arrow_array::{Array, ArrayRef, BooleanArray, RecordBatch, RecordBatchOptions};
use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};
use parquet::arrow::arrow_reader::{ParquetRecordBatchReader, ParquetRecordBatchReaderBuilder};
use parquet::arrow::{ArrowWriter, ProjectionMask};
use parquet::basic::{Compression as Codec, ZstdLevel};
use parquet::file::metadata::KeyValue;
use parquet::file::properties::WriterProperties;

use crate::corpus::{Document, FieldValue};
use crate::error::{Error, Place, Result};
use crate::guard::catching;
use crate::open::{Compression, is_stdin, sniff};
use crate::options::{Format, ReadOptions};

/// Rows decoded at a time.
const BATCH_ROWS: usize = 1024;

/// The most a copy buffers of a row group before writing it out, in bytes.
const ROW_GROUP_BYTES: usize = 128 << 20;

fn place(path: &Path, row: Option<u64>) -> Place {
    Place {
        path: path.to_path_buf(),
        line: row,
    }
}

/// An error decoding the rows of `path` from `row` on.
fn decode_error(path: &Path, row: u64, e: impl std::fmt::Display) -> Error {
    Error::Parquet {
        place: place(path, Some(row)),
        message: format!(
            "cannot decode its rows from here on ({e}); the file may be damaged or cut short"
        ),
    }
}

/// A file on which the parquet crate panicked (at row `row`, if known).
fn unreadable(path: &Path, row: Option<u64>, panic: &str) -> Error {
    Error::Parquet {
        place: place(path, row),
        message: format!(
            "not readable from here on: the Parquet reader failed on it ({panic}); \
             the file may be damaged or cut short"
        ),
    }
}

/// Opens `path` as Parquet, reading its footer.
fn open(path: &Path) -> Result<ParquetRecordBatchReaderBuilder<File>> {
    let message = if is_stdin(path) {
        Some("Parquet cannot be read from stdin (it needs to seek); give the file's path")
    } else if sniff(path, Format::Parquet).0 != Compression::None {
        Some(
            "a Parquet file compressed as a whole cannot be read (Parquet compresses inside, \
             and needs to seek); decompress it first",
        )
    } else {
        None
    };
    if let Some(message) = message {
        return Err(Error::Parquet {
            place: place(path, None),
            message: message.to_string(),
        });
    }
    let file = File::open(path).map_err(|e| Error::io(place(path, None), e))?;
    ParquetRecordBatchReaderBuilder::try_new(file).map_err(|e| Error::Parquet {
        place: place(path, None),
        message: format!(
            "not a readable Parquet file ({e}); check that it is whole and is Parquet, \
             or read it as another format"
        ),
    })
}

fn is_string(t: &DataType) -> bool {
    matches!(t, DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View)
}

fn is_binary(t: &DataType) -> bool {
    matches!(
        t,
        DataType::Binary | DataType::LargeBinary | DataType::BinaryView
    )
}

fn is_integer(t: &DataType) -> bool {
    t.is_integer()
}

/// Integers, floats, dates and timestamps: what [`scalar_at`] reads as a
/// number.
fn is_number(t: &DataType) -> bool {
    t.is_integer()
        || matches!(
            t,
            DataType::Float32
                | DataType::Float64
                | DataType::Date32
                | DataType::Date64
                | DataType::Timestamp(..)
        )
}

/// One value of a column.
enum Scalar<'a> {
    /// A string or binary value.
    Bytes(&'a [u8]),
    /// An integer, or a date or timestamp in its unit.
    Int(i128),
    /// A float.
    Float(f64),
}

/// The value at `i` of a column of a type [`is_string`], [`is_binary`] or
/// [`is_number`] accept; `None` for a null (or another type).
fn scalar_at(array: &dyn Array, i: usize) -> Option<Scalar<'_>> {
    if i >= array.len() || array.is_null(i) {
        return None;
    }
    macro_rules! int {
        ($t:ty) => {
            array
                .as_primitive_opt::<$t>()
                .map(|a| Scalar::Int(i128::from(a.value(i))))
        };
    }
    match array.data_type() {
        DataType::Utf8 => array
            .as_string_opt::<i32>()
            .map(|a| Scalar::Bytes(a.value(i).as_bytes())),
        DataType::LargeUtf8 => array
            .as_string_opt::<i64>()
            .map(|a| Scalar::Bytes(a.value(i).as_bytes())),
        DataType::Utf8View => array
            .as_string_view_opt()
            .map(|a| Scalar::Bytes(a.value(i).as_bytes())),
        DataType::Binary => array
            .as_binary_opt::<i32>()
            .map(|a| Scalar::Bytes(a.value(i))),
        DataType::LargeBinary => array
            .as_binary_opt::<i64>()
            .map(|a| Scalar::Bytes(a.value(i))),
        DataType::BinaryView => array
            .as_binary_view_opt()
            .map(|a| Scalar::Bytes(a.value(i))),
        DataType::Int8 => int!(Int8Type),
        DataType::Int16 => int!(Int16Type),
        DataType::Int32 => int!(Int32Type),
        DataType::Int64 => int!(Int64Type),
        DataType::UInt8 => int!(UInt8Type),
        DataType::UInt16 => int!(UInt16Type),
        DataType::UInt32 => int!(UInt32Type),
        DataType::UInt64 => int!(UInt64Type),
        DataType::Date32 => int!(Date32Type),
        DataType::Date64 => int!(Date64Type),
        DataType::Timestamp(TimeUnit::Second, _) => int!(TimestampSecondType),
        DataType::Timestamp(TimeUnit::Millisecond, _) => int!(TimestampMillisecondType),
        DataType::Timestamp(TimeUnit::Microsecond, _) => int!(TimestampMicrosecondType),
        DataType::Timestamp(TimeUnit::Nanosecond, _) => int!(TimestampNanosecondType),
        DataType::Float32 => array
            .as_primitive_opt::<Float32Type>()
            .map(|a| Scalar::Float(f64::from(a.value(i)))),
        DataType::Float64 => array
            .as_primitive_opt::<Float64Type>()
            .map(|a| Scalar::Float(a.value(i))),
        _ => None,
    }
}

/// The columns of one batch that documents are made of.
struct Columns {
    text: ArrayRef,
    id: Option<ArrayRef>,
    extra: Option<ArrayRef>,
    len: usize,
}

/// The rows of a Parquet file, read as documents a batch at a time.
pub(crate) struct ParquetRows {
    path: PathBuf,
    /// `None` once reading failed.
    reader: Option<ParquetRecordBatchReader>,
    text_field: String,
    /// The id column, if the file has one of strings or integers.
    id_field: Option<String>,
    /// The extra column, if asked for and the file has it.
    extra_field: Option<String>,
    limit: u64,
    batch: Option<Columns>,
    /// The next row of `batch`.
    next: usize,
    /// Rows handed out so far: the number of the last one.
    row: u64,
}

impl ParquetRows {
    /// Opens `path` and checks its columns against `options`.
    pub(crate) fn open(path: &Path, options: &ReadOptions) -> Result<ParquetRows> {
        catching(|| ParquetRows::open_unguarded(path, options))
            .unwrap_or_else(|panic| Err(unreadable(path, None, &panic)))
    }

    fn open_unguarded(path: &Path, options: &ReadOptions) -> Result<ParquetRows> {
        let builder = open(path)?;
        let schema = builder.schema().clone();
        let roots = builder.parquet_schema().root_schema().get_fields();
        // The arrow schema's fields are the Parquet schema's root fields.
        let find = |name: &str| {
            let root = roots.iter().position(|f| f.name() == name)?;
            Some((root, schema.field_with_name(name).ok()?.data_type().clone()))
        };
        let text = &options.text_field;
        let Some((text_root, text_type)) = find(text) else {
            return Err(Error::MissingColumn {
                place: place(path, None),
                column: text.clone(),
                columns: schema.fields().iter().map(|f| f.name().clone()).collect(),
            });
        };
        if !is_string(&text_type) && !is_binary(&text_type) {
            return Err(Error::ColumnType {
                place: place(path, None),
                column: text.clone(),
                found: text_type.to_string(),
                expected: "strings (Utf8, LargeUtf8, Utf8View) or UTF-8 bytes (Binary); \
                           name the text column",
            });
        }
        let mut wanted = vec![text_root];
        // An id column of another type is not an id: rows are named FILE:ROW.
        let id_field = match find(&options.id_field) {
            Some((root, t)) if is_string(&t) || is_integer(&t) => {
                wanted.push(root);
                Some(options.id_field.clone())
            }
            _ => None,
        };
        let extra_field = match options
            .extra_field
            .as_deref()
            .and_then(|f| Some((f, find(f)?)))
        {
            Some((name, (root, t))) if is_string(&t) || is_number(&t) => {
                wanted.push(root);
                Some(name.to_string())
            }
            Some((name, (_, t))) => {
                return Err(Error::ColumnType {
                    place: place(path, None),
                    column: name.to_string(),
                    found: t.to_string(),
                    expected: "numbers, dates, timestamps or strings",
                });
            }
            None => None,
        };
        let mask = ProjectionMask::roots(builder.parquet_schema(), wanted);
        let reader = builder
            .with_projection(mask)
            .with_batch_size(BATCH_ROWS)
            .build()
            .map_err(|e| decode_error(path, 1, e))?;
        Ok(ParquetRows {
            path: path.to_path_buf(),
            reader: Some(reader),
            text_field: text.clone(),
            id_field,
            extra_field,
            limit: options.max_bytes,
            batch: None,
            next: 0,
            row: 0,
        })
    }

    /// The next row as a document (or a record error), an error that ends
    /// the file, or `None` at its end.
    pub(crate) fn next_document(&mut self) -> Option<Result<Document>> {
        match catching(|| self.next_document_unguarded()) {
            Ok(next) => next,
            Err(panic) => {
                self.reader = None;
                self.batch = None;
                Some(Err(unreadable(&self.path, Some(self.row + 1), &panic)))
            }
        }
    }

    fn next_document_unguarded(&mut self) -> Option<Result<Document>> {
        loop {
            if let Some(batch) = &self.batch
                && self.next < batch.len
            {
                let i = self.next;
                self.next += 1;
                self.row += 1;
                return Some(self.document(batch, i));
            }
            let next = self.reader.as_mut()?.next()?;
            let batch = next
                .map_err(|e| decode_error(&self.path, self.row + 1, e))
                .and_then(|b| self.columns(&b));
            match batch {
                Ok(batch) => {
                    self.batch = Some(batch);
                    self.next = 0;
                }
                Err(e) => {
                    self.reader = None;
                    self.batch = None;
                    return Some(Err(e));
                }
            }
        }
    }

    /// The columns of `batch` that documents are made of.
    fn columns(&self, batch: &RecordBatch) -> Result<Columns> {
        let text = batch
            .column_by_name(&self.text_field)
            .cloned()
            .ok_or_else(|| {
                decode_error(
                    &self.path,
                    self.row + 1,
                    format!("no column {:?} in a batch", self.text_field),
                )
            })?;
        let column = |name: &Option<String>| name.as_deref().and_then(|n| batch.column_by_name(n));
        Ok(Columns {
            text,
            id: column(&self.id_field).cloned(),
            extra: column(&self.extra_field).cloned(),
            len: batch.num_rows(),
        })
    }

    /// Row `i` of `batch`, which is row `self.row` of the file.
    fn document(&self, batch: &Columns, i: usize) -> Result<Document> {
        let place = place(&self.path, Some(self.row));
        let text = match scalar_at(batch.text.as_ref(), i) {
            Some(Scalar::Bytes(bytes)) => bytes,
            _ => {
                return Err(Error::FieldType {
                    place,
                    field: self.text_field.clone(),
                    found: "null",
                    expected: "a string",
                });
            }
        };
        if text.len() as u64 > self.limit {
            return Err(Error::TooLarge {
                place,
                size: text.len() as u64,
                limit: self.limit,
            });
        }
        let text = match std::str::from_utf8(text) {
            Ok(text) => text.to_string(),
            Err(e) => {
                return Err(Error::Utf8 {
                    place,
                    offset: e.valid_up_to() as u64,
                });
            }
        };
        let id = match batch.id.as_ref().and_then(|a| scalar_at(a.as_ref(), i)) {
            Some(Scalar::Bytes(bytes)) => String::from_utf8_lossy(bytes).into_owned(),
            Some(Scalar::Int(n)) => n.to_string(),
            Some(Scalar::Float(x)) => x.to_string(),
            None => place.to_string(),
        };
        let extra = match batch.extra.as_ref().and_then(|a| scalar_at(a.as_ref(), i)) {
            Some(Scalar::Bytes(bytes)) => Some(FieldValue::Text(
                String::from_utf8_lossy(bytes).into_owned(),
            )),
            Some(Scalar::Int(n)) => Some(FieldValue::Number(n as f64)),
            Some(Scalar::Float(x)) => Some(FieldValue::Number(x)),
            None => None,
        };
        Ok(Document {
            id,
            text,
            offset: self.row - 1,
            place,
            extra,
        })
    }
}

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
