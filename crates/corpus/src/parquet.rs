//! Parquet files read as one document per row (their kept rows are copied
//! out by [`crate::parquet_copy`]).
//!
//! Reading decodes only the columns it needs (the text column, and the id
//! and extra columns when the file has them), [`BATCH_ROWS`] rows at a time,
//! so memory is bounded by a batch whatever the size of the file. Rows are
//! numbered from 1 across the whole file (all row groups): a document's
//! place is `FILE:ROW`, its id the id column's value or `FILE:ROW`, and its
//! [`offset`](crate::Document::offset) the 0-based row index.
//!
//! Limits: Parquet needs to seek, so it is read from files only, not from
//! stdin nor through `.gz`/`.zst`; only top-level columns can be named;
//! the text column holds strings (`Utf8`, `LargeUtf8`, `Utf8View`) or
//! UTF-8 bytes (`Binary`, `LargeBinary`, `BinaryView`).

use std::fs::File;
use std::path::{Path, PathBuf};

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Date64Type, Float32Type, Float64Type, Int8Type, Int16Type, Int32Type, Int64Type,
    TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType,
    TimestampSecondType, UInt8Type, UInt16Type, UInt32Type, UInt64Type,
};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::{DataType, TimeUnit};
use parquet::arrow::ProjectionMask;
use parquet::arrow::arrow_reader::{ParquetRecordBatchReader, ParquetRecordBatchReaderBuilder};

use crate::corpus::{Document, FieldValue};
use crate::error::{Error, Place, Result};
use crate::guard::catching;
use crate::open::{Compression, is_stdin, sniff};
use crate::options::{Format, ReadOptions};

/// Rows decoded at a time.
pub(crate) const BATCH_ROWS: usize = 1024;

pub(crate) fn place(path: &Path, row: Option<u64>) -> Place {
    Place {
        path: path.to_path_buf(),
        line: row,
    }
}

/// An error decoding the rows of `path` from `row` on.
pub(crate) fn decode_error(path: &Path, row: u64, e: impl std::fmt::Display) -> Error {
    Error::Parquet {
        place: place(path, Some(row)),
        message: format!(
            "cannot decode its rows from here on ({e}); the file may be damaged or cut short"
        ),
    }
}

/// A file on which the parquet crate panicked (at row `row`, if known).
pub(crate) fn unreadable(path: &Path, row: Option<u64>, panic: &str) -> Error {
    Error::Parquet {
        place: place(path, row),
        message: format!(
            "not readable from here on: the Parquet reader failed on it ({panic}); \
             the file may be damaged or cut short"
        ),
    }
}

/// Opens `path` as Parquet, reading its footer.
pub(crate) fn open(path: &Path) -> Result<ParquetRecordBatchReaderBuilder<File>> {
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
