//! Parquet input: rows as documents, and kept rows copied back out.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::builder::{ListBuilder, StringBuilder};
use arrow_array::{
    Array, ArrayRef, BinaryArray, Float64Array, Int32Array, Int64Array, LargeStringArray,
    RecordBatch, StringArray, StringViewArray, TimestampMillisecondArray, UInt64Array,
};
use arrow_schema::{DataType, Field, Schema};
use neardup_corpus::{
    Corpus, Document, Error, FieldValue, Format, ParquetRowWriter, ReadOptions, copy_rows,
};
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::basic::{Compression, GzipLevel, ZstdLevel};
use parquet::file::metadata::KeyValue;
use parquet::file::properties::WriterProperties;

/// Writes `batches` to `path` as Parquet, with `compression`.
fn write(path: &Path, batches: &[RecordBatch], compression: Compression) -> PathBuf {
    let pandas = KeyValue::new("pandas".to_string(), "{\"columns\": []}".to_string());
    let props = WriterProperties::builder()
        .set_key_value_metadata(Some(vec![pandas]))
        .set_compression(compression)
        .set_max_row_group_row_count(Some(700))
        .build();
    let file = std::fs::File::create(path).unwrap();
    let mut writer = ArrowWriter::try_new(file, batches[0].schema(), Some(props)).unwrap();
    for batch in batches {
        writer.write(batch).unwrap();
    }
    writer.close().unwrap();
    path.to_path_buf()
}

fn batch(columns: Vec<(&str, ArrayRef)>) -> RecordBatch {
    RecordBatch::try_from_iter(columns).unwrap()
}

fn read(paths: &[PathBuf], options: &ReadOptions) -> Vec<Result<Document, Error>> {
    Corpus::open(paths, options).unwrap().documents().collect()
}

fn strings(values: &[Option<&str>]) -> ArrayRef {
    Arc::new(StringArray::from(values.to_vec()))
}

#[test]
fn rows_are_documents_with_string_or_integer_ids() {
    let dir = tempfile::tempdir().unwrap();
    let texts = strings(&[Some("one"), Some("two"), Some("three")]);
    let named = write(
        &dir.path().join("named.parquet"),
        &[batch(vec![
            ("id", strings(&[Some("a"), None, Some("c")])),
            ("text", texts.clone()),
        ])],
        Compression::UNCOMPRESSED,
    );
    let numbered = write(
        &dir.path().join("numbered.parquet"),
        &[batch(vec![
            ("text", texts.clone()),
            ("id", Arc::new(UInt64Array::from(vec![7, u64::MAX, 9]))),
        ])],
        Compression::SNAPPY,
    );
    let anonymous = write(
        &dir.path().join("anonymous.parquet"),
        &[batch(vec![("text", texts)])],
        Compression::UNCOMPRESSED,
    );
    let docs: Vec<Document> = read(
        &[named.clone(), numbered, anonymous.clone()],
        &ReadOptions::default(),
    )
    .into_iter()
    .map(Result::unwrap)
    .collect();
    let ids: Vec<&str> = docs.iter().map(|d| d.id.as_str()).collect();
    let row = |path: &Path, n: u64| format!("{}:{n}", path.display());
    let (second, third) = (row(&named, 2), row(&anonymous, 3));
    assert_eq!(
        ids[..7],
        [
            "a",
            &second,
            "c",
            "7",
            "18446744073709551615",
            "9",
            &row(&anonymous, 1)
        ]
    );
    assert_eq!(docs[8].id, third);
    assert_eq!(docs[8].place.to_string(), third);
    assert_eq!(docs[1].place.line, Some(2));
    assert_eq!((docs[2].text.as_str(), docs[2].offset), ("three", 2));
    assert_eq!(docs.len(), 9);
}

#[test]
fn many_batches_and_row_groups_are_numbered_across_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let texts: Vec<String> = (1..=2500).map(|i| format!("document number {i}")).collect();
    let ids: Vec<i64> = (1..=2500).map(|i| i * 10).collect();
    let path = write(
        &dir.path().join("big.parquet"),
        &[batch(vec![
            ("text", Arc::new(StringArray::from(texts.clone()))),
            ("id", Arc::new(Int64Array::from(ids))),
        ])],
        Compression::ZSTD(ZstdLevel::default()),
    );
    let docs = read(&[path], &ReadOptions::default());
    assert_eq!(docs.len(), 2500);
    for (i, doc) in docs.iter().enumerate() {
        let doc = doc.as_ref().unwrap();
        assert_eq!(doc.text, texts[i]);
        assert_eq!(doc.id, ((i + 1) * 10).to_string());
        assert_eq!(doc.place.line, Some(i as u64 + 1));
    }
}

#[test]
fn null_text_is_a_record_error_and_too_large_one_too() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        &dir.path().join("nulls.parquet"),
        &[batch(vec![(
            "text",
            strings(&[
                Some("first"),
                None,
                Some("a rather long text"),
                Some("last"),
            ]),
        )])],
        Compression::GZIP(GzipLevel::default()),
    );
    let mut options = ReadOptions::default();
    options.max_bytes(10);
    let items = read(std::slice::from_ref(&path), &options);
    assert_eq!(items.len(), 4, "reading goes on after a record error");
    let null = items[1].as_ref().unwrap_err();
    assert!(null.is_record());
    assert_eq!(null.kind_name(), "field-type");
    let message = null.to_string();
    assert!(
        message.starts_with(&format!("{}:2: ", path.display())) && message.contains("null"),
        "{message}"
    );
    let large = items[2].as_ref().unwrap_err();
    assert_eq!(
        (large.kind_name(), large.place().line),
        ("too-large", Some(3))
    );
    assert_eq!(items[3].as_ref().unwrap().text, "last");
}

#[test]
fn a_missing_or_mistyped_text_column_names_the_file_and_columns() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        &dir.path().join("other.parquet"),
        &[batch(vec![
            ("body", strings(&[Some("x")])),
            ("n", Arc::new(Int32Array::from(vec![1]))),
        ])],
        Compression::UNCOMPRESSED,
    );
    let items = read(std::slice::from_ref(&path), &ReadOptions::default());
    let err = items[0].as_ref().unwrap_err();
    assert!(!err.is_record(), "the whole file is unreadable as asked");
    let message = err.to_string();
    assert!(
        message.contains("other.parquet")
            && message.contains("no column \"text\" (it has: body, n)")
            && message.contains("name the text column"),
        "{message}"
    );
    assert_eq!(items.len(), 1);
    let mut options = ReadOptions::default();
    options.text_field("n");
    let items = read(std::slice::from_ref(&path), &options);
    let message = items[0].as_ref().unwrap_err().to_string();
    assert!(
        message.contains("column \"n\" is of type Int32, expected strings"),
        "{message}"
    );
    options.text_field("body");
    assert_eq!(read(&[path], &options)[0].as_ref().unwrap().text, "x");
}

#[test]
fn large_utf8_views_and_binary_text_columns() {
    let dir = tempfile::tempdir().unwrap();
    let columns: Vec<(&str, ArrayRef)> = vec![
        (
            "large",
            Arc::new(LargeStringArray::from(vec!["large text"])),
        ),
        ("view", Arc::new(StringViewArray::from(vec!["view text"]))),
        (
            "binary",
            Arc::new(BinaryArray::from(vec![&b"bytes text"[..]])),
        ),
        ("bad", Arc::new(BinaryArray::from(vec![&b"ab\xffc"[..]]))),
    ];
    let path = write(
        &dir.path().join("types.parquet"),
        &[batch(columns)],
        Compression::LZ4_RAW,
    );
    let text = |field: &str| {
        let mut options = ReadOptions::default();
        options.text_field(field);
        read(std::slice::from_ref(&path), &options).remove(0)
    };
    assert_eq!(text("large").unwrap().text, "large text");
    assert_eq!(text("view").unwrap().text, "view text");
    assert_eq!(text("binary").unwrap().text, "bytes text");
    let bad = text("bad").unwrap_err();
    assert_eq!(
        (bad.kind_name(), bad.place().line),
        ("invalid-utf8", Some(1))
    );
}

#[test]
fn every_compression_reads_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let rows = batch(vec![("text", strings(&[Some("alpha"), Some("beta")]))]);
    for (name, compression) in [
        ("snappy", Compression::SNAPPY),
        ("gzip", Compression::GZIP(GzipLevel::default())),
        ("zstd", Compression::ZSTD(ZstdLevel::default())),
        ("lz4", Compression::LZ4),
        ("lz4raw", Compression::LZ4_RAW),
    ] {
        let path = write(
            &dir.path().join(format!("{name}.parquet")),
            std::slice::from_ref(&rows),
            compression,
        );
        let texts: Vec<String> = read(&[path], &ReadOptions::default())
            .into_iter()
            .map(|d| d.unwrap().text)
            .collect();
        assert_eq!(texts, ["alpha", "beta"], "{name}");
    }
}

#[test]
fn extra_field_reads_numbers_strings_and_timestamps() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        &dir.path().join("extra.parquet"),
        &[batch(vec![
            ("text", strings(&[Some("a"), Some("b")])),
            ("score", Arc::new(Float64Array::from(vec![Some(0.5), None]))),
            ("count", Arc::new(Int64Array::from(vec![3, -4]))),
            ("date", strings(&[Some("2024-01-09"), Some("2023-12-31")])),
            (
                "at",
                Arc::new(TimestampMillisecondArray::from(vec![1_000, 2_000])),
            ),
            (
                "flag",
                Arc::new(arrow_array::BooleanArray::from(vec![true, false])),
            ),
        ])],
        Compression::UNCOMPRESSED,
    );
    let extras = |field: &str| -> Vec<Option<FieldValue>> {
        let mut options = ReadOptions::default();
        options.extra_field(field);
        read(std::slice::from_ref(&path), &options)
            .into_iter()
            .map(|d| d.unwrap().extra)
            .collect()
    };
    assert_eq!(extras("score"), [Some(FieldValue::Number(0.5)), None]);
    assert_eq!(
        extras("count"),
        [
            Some(FieldValue::Number(3.0)),
            Some(FieldValue::Number(-4.0))
        ]
    );
    assert_eq!(
        extras("date")[1],
        Some(FieldValue::Text("2023-12-31".to_string()))
    );
    assert_eq!(extras("at")[1], Some(FieldValue::Number(2000.0)));
    assert_eq!(extras("missing"), [None, None]);
    let mut options = ReadOptions::default();
    options.extra_field("flag");
    let err = read(std::slice::from_ref(&path), &options)
        .remove(0)
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("column \"flag\" is of type Boolean"),
        "{err}"
    );
}

#[test]
fn parquet_files_found_by_walking_are_read_not_skipped_as_binary() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("data")).unwrap();
    write(
        &dir.path().join("data/part-0.parquet"),
        &[batch(vec![("text", strings(&[Some("from parquet")]))])],
        Compression::SNAPPY,
    );
    std::fs::write(dir.path().join("data/notes.txt"), "from text").unwrap();
    let corpus = Corpus::open(&[dir.path().join("data")], &ReadOptions::default()).unwrap();
    let mut docs = corpus.documents();
    let texts: Vec<String> = docs.by_ref().map(|d| d.unwrap().text).collect();
    assert_eq!(texts, ["from text", "from parquet"]);
    assert_eq!(docs.skipped_binary_files(), 0);
}

#[test]
fn damaged_and_unreadable_files_are_errors_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let good = write(
        &dir.path().join("good.parquet"),
        &[batch(vec![("text", strings(&[Some("x"); 50]))])],
        Compression::UNCOMPRESSED,
    );
    let bytes = std::fs::read(&good).unwrap();
    let garbage = dir.path().join("garbage.parquet");
    std::fs::write(&garbage, b"this is not parquet at all").unwrap();
    let cut = dir.path().join("cut.parquet");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let zipped = dir.path().join("zipped.parquet.gz");
    std::fs::write(&zipped, &bytes).unwrap();
    for (path, says) in [
        (&garbage, "not a readable Parquet file"),
        (&cut, "not a readable Parquet file"),
        (&zipped, "decompress it first"),
    ] {
        let items = read(std::slice::from_ref(path), &ReadOptions::default());
        assert_eq!(items.len(), 1, "{}", path.display());
        let err = items[0].as_ref().unwrap_err();
        assert!(!err.is_record());
        let message = err.to_string();
        assert!(
            message.contains(&path.display().to_string()) && message.contains(says),
            "{message}"
        );
        assert_eq!(err.kind_name(), "invalid-parquet");
    }
    let mut options = ReadOptions::default();
    options.format(Format::Parquet);
    let corpus = Corpus::open(&["-"], &options).unwrap();
    let err = corpus.documents().next().unwrap().unwrap_err();
    assert!(err.to_string().contains("stdin"), "{err}");
}

/// A file with a string id, the text, an integer, a list of strings and a
/// nullable float column, `n` rows, and schema metadata.
fn wide(path: &Path, n: usize) -> PathBuf {
    let mut tags = ListBuilder::new(StringBuilder::new());
    for i in 0..n {
        for t in 0..i % 3 {
            tags.values().append_value(format!("tag{t}"));
        }
        tags.append(i % 5 != 4);
    }
    let tags: ArrayRef = Arc::new(tags.finish());
    let columns: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from_iter_values(
            (0..n).map(|i| format!("r{i}")),
        )),
        Arc::new(StringArray::from_iter_values(
            (0..n).map(|i| format!("text of row {i}")),
        )),
        Arc::new(Int64Array::from_iter_values((0..n).map(|i| i as i64 * 3))),
        tags.clone(),
        Arc::new(Float64Array::from_iter(
            (0..n).map(|i| (i % 2 == 0).then_some(i as f64 / 2.0)),
        )),
    ];
    let fields = vec![
        Field::new("id", DataType::Utf8, false),
        Field::new("text", DataType::Utf8, false),
        Field::new("n", DataType::Int64, false),
        Field::new("tags", tags.data_type().clone(), true),
        Field::new("score", DataType::Float64, true),
    ];
    let metadata = HashMap::from([("origin".to_string(), "test".to_string())]);
    let schema = Arc::new(Schema::new(fields).with_metadata(metadata));
    let rows = RecordBatch::try_new(schema, columns).unwrap();
    write(path, &[rows], Compression::SNAPPY)
}

/// All rows of a Parquet file, as one batch with its schema.
fn read_back(bytes: Vec<u8>) -> RecordBatch {
    let mut file = tempfile::tempfile().unwrap();
    std::io::Write::write_all(&mut file, &bytes).unwrap();
    let builder = ParquetRecordBatchReaderBuilder::try_new(file).unwrap();
    // Key-value metadata stays key-value metadata, for other readers.
    let key_values = builder.metadata().file_metadata().key_value_metadata();
    assert!(key_values.unwrap().iter().any(|kv| kv.key == "pandas"));
    // The builder's schema has the file's metadata; the batches' do not.
    let schema = builder.schema().clone();
    let reader = builder.build().unwrap();
    let batches: Vec<RecordBatch> = reader.map(Result::unwrap).collect();
    arrow_select::concat::concat_batches(&schema, &batches).unwrap()
}

#[test]
fn copy_rows_keeps_the_chosen_rows_and_every_column() {
    let dir = tempfile::tempdir().unwrap();
    let path = wide(&dir.path().join("wide.parquet"), 2600);
    let all = read_back(std::fs::read(&path).unwrap());
    let mut asked = Vec::new();
    let mut out = Vec::new();
    let copied = copy_rows(
        &path,
        |row| {
            asked.push(row);
            row % 3 == 1
        },
        &mut out,
    )
    .unwrap();
    assert_eq!(
        asked,
        (1..=2600).collect::<Vec<u64>>(),
        "every row, in order"
    );
    assert_eq!(copied, 867);
    let kept = read_back(out);
    assert_eq!(kept.schema(), all.schema(), "same columns and metadata");
    assert_eq!(kept.schema().metadata()["origin"], "test");
    assert_eq!(kept.schema().metadata()["pandas"], "{\"columns\": []}");
    let rows: Vec<u64> = (0..2600u64).filter(|r| r % 3 == 0).collect();
    let expected =
        arrow_select::take::take_record_batch(&all, &arrow_array::UInt64Array::from(rows)).unwrap();
    assert_eq!(kept, expected);
    // The copy reads as the kept rows.
    let copy = dir.path().join("copy.parquet");
    copy_rows(&path, |row| row <= 2, std::fs::File::create(&copy).unwrap()).unwrap();
    let ids: Vec<String> = read(&[copy], &ReadOptions::default())
        .into_iter()
        .map(|d| d.unwrap().id)
        .collect();
    assert_eq!(ids, ["r0", "r1"]);
}

#[test]
fn files_of_one_schema_go_into_one_output_and_others_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let a = wide(&dir.path().join("a.parquet"), 10);
    let b = wide(&dir.path().join("b.parquet"), 5);
    let mut writer = ParquetRowWriter::new(Vec::new());
    assert_eq!(writer.copy(&a, |row| row == 10).unwrap(), 1);
    assert_eq!(writer.copy(&b, |_| false).unwrap(), 0);
    assert_eq!(writer.copy(&b, |row| row <= 2).unwrap(), 2);
    let other = write(
        &dir.path().join("other.parquet"),
        &[batch(vec![("text", strings(&[Some("x")]))])],
        Compression::UNCOMPRESSED,
    );
    let err = writer.copy(&other, |_| true).unwrap_err();
    let message = err.to_string();
    assert!(
        message.contains("other.parquet")
            && message.contains("a.parquet")
            && message
                .contains("column 1 is \"id\" Utf8 not null there, \"text\" Utf8 not null here"),
        "{message}"
    );
    let kept = read_back(writer.finish().unwrap());
    let ids = kept
        .column(0)
        .as_any()
        .downcast_ref::<StringArray>()
        .unwrap();
    let ids: Vec<&str> = ids.iter().map(Option::unwrap).collect();
    assert_eq!(ids, ["r9", "r0", "r1"]);
    // Nothing copied: nothing written.
    assert!(
        ParquetRowWriter::new(Vec::new())
            .finish()
            .unwrap()
            .is_empty()
    );
}

#[test]
fn documents_can_be_sent_to_another_thread() {
    fn send<T: Send>(_: &T) {}
    let corpus = Corpus::open(&["-"], &ReadOptions::default()).unwrap();
    send(&corpus.documents());
    send(&ParquetRowWriter::new(Vec::new()));
}

/// Damaged files (every byte of a small file changed in turn, and the file
/// cut at every length) give documents or errors, never a panic: the
/// parquet crate panics on some damage, and the reader turns that into an
/// error of the file (issue 16).
#[test]
fn damaged_files_give_errors_not_panics() {
    neardup_corpus::quiet_caught_panics();
    let dir = tempfile::tempdir().unwrap();
    let whole = write(
        &dir.path().join("whole.parquet"),
        &[batch(vec![
            ("id", strings(&[Some("a"), Some("b"), Some("c")])),
            (
                "text",
                strings(&[Some("one two"), Some("three four five"), None]),
            ),
        ])],
        Compression::SNAPPY,
    );
    let bytes = std::fs::read(&whole).unwrap();
    let damaged = dir.path().join("damaged.parquet");
    let options = ReadOptions::default();
    let mut tried = 0;
    for at in 0..bytes.len() {
        for change in [0xff_u8, 0x80, 0x01] {
            let mut copy = bytes.clone();
            copy[at] ^= change;
            std::fs::write(&damaged, &copy).unwrap();
            let _ = read(std::slice::from_ref(&damaged), &options);
            tried += 1;
        }
        std::fs::write(&damaged, &bytes[..at]).unwrap();
        let _ = read(std::slice::from_ref(&damaged), &options);
    }
    assert!(tried > 300, "{tried}");
}
