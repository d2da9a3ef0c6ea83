//! Fuzz properties of the readers: arbitrary bytes and JSON-ish lines,
//! written to `x.jsonl`, `x.txt` (whole file and `lines(true)`) and
//! `x.jsonl.gz`, are read to the end without a panic, and what is read
//! agrees with a model of the formats:
//!
//! - a line-based file gives exactly one item (a document or an error) per
//!   line that is not blank, in order, each naming its line and byte offset;
//! - a document whose text is empty or only whitespace is a `blank-text`
//!   error (for a whole file, `empty-file`);
//! - a line-based file without a record is an `empty-file` error; a line
//!   longer than twice `max_bytes` an `endless-line` error, the last item;
//! - a line longer than `max_bytes` is a `too-large` error, invalid UTF-8 an
//!   `invalid-utf8` error at the first bad byte, a NUL byte in the first
//!   8 KiB of a text file a `binary` error for the whole file;
//! - a JSON record gives its `text` and `id` fields, or the error its
//!   defect calls for;
//! - a gzip-compressed file reads like the plain one;
//! - every error's message names the file, and the line for line-based
//!   formats.
//!
//! The cargo-fuzz target `fuzz/fuzz_targets/read_jsonl.rs` checks that
//! nothing panics and that errors name the file on inputs found by coverage.

use std::io::Write;
use std::path::{Path, PathBuf};

use neardup_corpus::{Corpus, Document, Error, ReadOptions};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use serde_json::Value;

use crate::model::{Expect, JsonOutcome, expect_lines, expect_whole};

/// `cases` cases, or `PROPTEST_CASES` when set (to fuzz longer, for example
/// `PROPTEST_CASES=100000 cargo test --release -p neardup-corpus`).
fn config(cases: u32) -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(cases);
    ProptestConfig::with_cases(cases)
}

/// Reads `path` to the end (at most a bound of items, so that a reader
/// that never ends fails instead of hanging).
fn read(path: &Path, options: &ReadOptions, bound: usize) -> Vec<Result<Document, Error>> {
    let corpus = Corpus::open(&[path], options).expect("opening an existing file");
    let items: Vec<_> = corpus.documents().take(bound + 1).collect();
    assert!(
        items.len() <= bound,
        "{}: more items than lines",
        path.display()
    );
    items
}

/// Checks what every error must satisfy: it names the file, and the line
/// when it has one.
fn check_error(err: &Error, path: &Path) -> Result<(), TestCaseError> {
    let message = err.to_string();
    let name = path.display().to_string();
    prop_assert_eq!(&err.place().path, path, "{}", message);
    prop_assert!(
        message.contains(&name),
        "the message does not name the file: {}",
        message
    );
    if let Some(line) = err.place().line {
        prop_assert!(
            message.contains(&format!("{name}:{line}: ")),
            "the message does not name the line: {}",
            message
        );
    }
    Ok(())
}

/// The offset an error carries, for the kinds that carry one.
fn error_offset(err: &Error) -> Option<u64> {
    match err {
        Error::Utf8 { offset, .. } | Error::Binary { offset, .. } => Some(*offset),
        _ => None,
    }
}

/// Checks `items`, read from `path`, against `expected`.
fn check_items(
    items: &[Result<Document, Error>],
    expected: &[Expect],
    path: &Path,
    max_bytes: u64,
) -> Result<(), TestCaseError> {
    for item in items {
        match item {
            Err(err) => {
                check_error(err, path)?;
                if let Error::TooLarge { size, limit, .. } = err {
                    prop_assert_eq!(*limit, max_bytes);
                    prop_assert!(size > limit, "{}", err);
                }
            }
            Ok(doc) => prop_assert_eq!(&doc.place.path, path),
        }
    }
    let got: Vec<String> = items.iter().map(describe).collect();
    prop_assert_eq!(
        items.len(),
        expected.len(),
        "{}: got {:#?}, expected {:#?}",
        path.display(),
        got,
        expected
    );
    for (i, (item, want)) in items.iter().zip(expected).enumerate() {
        let ok = match (item, want) {
            (Ok(doc), Expect::Doc { .. }) => {
                &Expect::Doc {
                    line: doc.place.line,
                    offset: doc.offset,
                    text: doc.text.clone(),
                    id: doc.id.clone(),
                } == want
            }
            (Err(err), Expect::Err { .. }) => {
                &Expect::Err {
                    kind: err.kind_name(),
                    line: err.place().line,
                    offset: error_offset(err),
                } == want
            }
            (Ok(doc), Expect::Record { line }) => doc.place.line == Some(*line),
            (Err(err), Expect::Record { line }) => {
                matches!(
                    err.kind_name(),
                    "invalid-json" | "missing-field" | "field-type"
                ) && err.place().line == Some(*line)
            }
            _ => false,
        };
        prop_assert!(
            ok,
            "{}: item {} is {}, expected {:?}",
            path.display(),
            i,
            got[i],
            want
        );
    }
    Ok(())
}

fn describe(item: &Result<Document, Error>) -> String {
    match item {
        Ok(doc) => format!("{doc:?}"),
        Err(err) => format!("{} error: {err}", err.kind_name()),
    }
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(bytes).unwrap();
    gz.finish().unwrap()
}

/// A directory with `x.jsonl`, `x.txt` and `x.jsonl.gz`.
struct Files {
    _dir: tempfile::TempDir,
    jsonl: PathBuf,
    txt: PathBuf,
    gz: PathBuf,
}

impl Files {
    fn new() -> Files {
        let dir = tempfile::tempdir().unwrap();
        Files {
            jsonl: dir.path().join("x.jsonl"),
            txt: dir.path().join("x.txt"),
            gz: dir.path().join("x.jsonl.gz"),
            _dir: dir,
        }
    }
}

/// Writes `bytes` to every file and checks every way of reading them.
fn check_all(
    bytes: &[u8],
    max_bytes: u64,
    json: &dyn Fn(u64) -> JsonOutcome,
) -> Result<(), TestCaseError> {
    let files = Files::new();
    let mut options = ReadOptions::default();
    options.max_bytes(max_bytes);
    // One item per line at most, plus one.
    let bound = bytes.iter().filter(|&&b| b == b'\n').count() + 2;

    std::fs::write(&files.jsonl, bytes).unwrap();
    let items = read(&files.jsonl, &options, bound);
    let expected = expect_lines(bytes, &files.jsonl, max_bytes, Some(json));
    check_items(&items, &expected, &files.jsonl, max_bytes)?;

    std::fs::write(&files.gz, gzip(bytes)).unwrap();
    let items = read(&files.gz, &options, bound);
    let expected = expect_lines(bytes, &files.gz, max_bytes, Some(json));
    check_items(&items, &expected, &files.gz, max_bytes)?;

    std::fs::write(&files.txt, bytes).unwrap();
    let items = read(&files.txt, &options, bound);
    check_items(
        &items,
        &expect_whole(bytes, &files.txt, max_bytes),
        &files.txt,
        max_bytes,
    )?;
    options.lines(true);
    let items = read(&files.txt, &options, bound);
    let expected = expect_lines(bytes, &files.txt, max_bytes, None);
    check_items(&items, &expected, &files.txt, max_bytes)
}

// ---------------------------------------------------------------------------
// Inputs.

/// `max_bytes`: usually small, so that long lines occur, sometimes the
/// default.
fn max_bytes() -> impl Strategy<Value = u64> {
    prop_oneof![
        3 => 0u64..200,
        1 => Just(ReadOptions::default().max_bytes_value()),
    ]
}

/// Bytes that are often JSON-ish.
fn json_ish_bytes() -> impl Strategy<Value = Vec<u8>> {
    let tokens: &[&[u8]] = &[
        b"{",
        b"}",
        b"[",
        b"]",
        b"\"",
        b":",
        b",",
        b" ",
        b"\t",
        b"\n",
        b"\r\n",
        b"\r",
        b"0",
        b"-1.5e3",
        b"1e999",
        b"true",
        b"null",
        b"\\",
        b"\\u00e9",
        b"\\ud800",
        b"\"text\"",
        b"\"id\"",
        b"\"text\":\"a\"",
        b"\x00",
        b"\xff",
        b"\xc3",
        b"\xc3\xa9",
        b"\xe4\xb8\xad",
        b"\xed\xa0\x80",
        b"\x0b",
        b"\x0c",
        b"a",
    ];
    proptest::collection::vec(proptest::sample::select(tokens), 0..200).prop_map(|t| t.concat())
}

/// A string of up to `max` characters, drawn from `chars` (cheaper to
/// generate than a regex in a debug build).
fn string_of(chars: &'static [char], max: usize) -> impl Strategy<Value = String> + Clone {
    proptest::collection::vec(proptest::sample::select(chars), 0..=max)
        .prop_map(|cs| cs.into_iter().collect())
}

/// Any string of up to 16 characters.
fn any_string() -> impl Strategy<Value = String> + Clone {
    proptest::collection::vec(any::<char>(), 0..=16).prop_map(|cs| cs.into_iter().collect())
}

/// Letters, and the characters JSON escapes or may escape: control
/// characters, quotes, backslashes, line separators, characters outside the
/// BMP.
const TRICKY: &[char] = &[
    'a',
    'b',
    ' ',
    'é',
    '中',
    '\0',
    '\u{1}',
    '\t',
    '\n',
    '\r',
    '\u{1f}',
    '"',
    '\\',
    '/',
    '\u{7f}',
    '\u{2028}',
    '\u{2029}',
    '\u{fffd}',
    '\u{feff}',
    '\u{1f600}',
];

/// A JSON value, nested a little.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        any_string().prop_map(Value::String),
    ];
    leaf.prop_recursive(2, 8, 3, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::vec((string_of(&['a', 'b', 'c'], 3), inner), 0..3)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

/// The text of a record.
fn text_value() -> impl Strategy<Value = String> {
    prop_oneof![any_string(), string_of(TRICKY, 24)]
}

/// A valid record: its rendered line and what it should give.
fn record() -> impl Strategy<Value = (String, JsonOutcome)> {
    // The text field: a string, another type, or absent.
    let text = prop_oneof![
        4 => text_value().prop_map(|t| Some(Value::String(t))),
        1 => json_value().prop_map(Some),
        1 => Just(None),
    ];
    // The id field: a string, a number, another type, or absent.
    let id = prop_oneof![
        any_string().prop_map(|t| Some(Value::String(t))),
        any::<i64>().prop_map(|n| Some(Value::from(n))),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| Some(Value::from(f))),
        json_value().prop_map(Some),
        Just(None),
    ];
    let others = proptest::collection::vec(
        (
            prop_oneof![3 => string_of(&['a', 'b', '_', 'é'], 6), 1 => any_string()]
                .prop_filter("not text or id", |k| k != "text" && k != "id"),
            json_value(),
        ),
        0..4,
    );
    let spaces = proptest::collection::vec(proptest::sample::select(&["", " ", "\t", "  "][..]), 8);
    (text, id, others, any::<usize>(), any::<usize>(), spaces).prop_map(
        |(text, id, mut fields, at_text, at_id, spaces)| {
            if let Some(t) = &text {
                let at = at_text % (fields.len() + 1);
                fields.insert(at, ("text".to_string(), t.clone()));
            }
            if let Some(i) = &id {
                let at = at_id % (fields.len() + 1);
                fields.insert(at, ("id".to_string(), i.clone()));
            }
            let s = |i: usize| spaces[i % spaces.len()];
            let body: Vec<String> = fields
                .iter()
                .enumerate()
                .map(|(i, (k, v))| {
                    format!(
                        "{}{}{}:{}{}",
                        s(i),
                        serde_json::to_string(k).unwrap(),
                        s(i + 1),
                        s(i + 2),
                        serde_json::to_string(v).unwrap()
                    )
                })
                .collect();
            let line = format!("{}{{{}{}}}{}", s(3), body.join(","), s(5), s(6));
            // Read the expected values back from the rendered JSON, as the
            // reader does.
            let parsed: Value = serde_json::from_str(&line).unwrap();
            let outcome = match parsed.get("text") {
                None => JsonOutcome::Err("missing-field"),
                Some(Value::String(t)) => JsonOutcome::Doc {
                    text: t.clone(),
                    id: match parsed.get("id") {
                        Some(Value::String(i)) => Some(i.clone()),
                        Some(Value::Number(n)) => Some(if let Some(u) = n.as_u64() {
                            u.to_string()
                        } else if let Some(i) = n.as_i64() {
                            i.to_string()
                        } else {
                            n.as_f64().unwrap().to_string()
                        }),
                        _ => None,
                    },
                },
                Some(_) => JsonOutcome::Err("field-type"),
            };
            (line, outcome)
        },
    )
}

/// One line of a JSON-lines file (without its ending) and what it should
/// give: a valid record, or one broken in some way.
fn json_line() -> impl Strategy<Value = (Vec<u8>, JsonOutcome)> {
    let invalid_utf8: &[&[u8]] = &[
        b"\xff",
        b"\xc3",
        b"\x80",
        b"\xed\xa0\x80",
        b"\xf4\x90\x80\x80",
        b"\xe4\xb8",
    ];
    prop_oneof![
        6 => record().prop_map(|(l, o)| (l.into_bytes(), o)),
        // Blank: spaces, tabs, form feeds, carriage returns.
        1 => string_of(&[' ', '\t', '\x0c', '\r'], 4)
            .prop_map(|l| (l.into_bytes(), JsonOutcome::Any)),
        // Truncated before its closing brace.
        2 => (record(), any::<usize>()).prop_map(|((l, _), cut)| {
            let cut = 1 + cut % l.rfind('}').unwrap();
            (l.as_bytes()[..cut].to_vec(), JsonOutcome::Err("invalid-json"))
        }),
        // Invalid UTF-8 inserted anywhere.
        1 => (record(), any::<usize>(), proptest::sample::select(invalid_utf8)).prop_map(
            |((l, _), at, bad)| {
                let mut bytes = l.into_bytes();
                let at = at % (bytes.len() + 1);
                bytes.splice(at..at, bad.iter().copied());
                // The model finds the first bad byte; should the insertion
                // have completed a character, anything may follow.
                let outcome = match std::str::from_utf8(&bytes) {
                    Ok(_) => JsonOutcome::Any,
                    Err(_) => JsonOutcome::Err("invalid-utf8"),
                };
                (bytes, outcome)
            }
        ),
        // A NUL byte inserted after the opening brace.
        1 => (record(), any::<usize>()).prop_map(|((l, _), at)| {
            let start = l.find('{').unwrap() + 1;
            let at = start + at % (l.len() - start + 1);
            let mut bytes = l.into_bytes();
            bytes.insert(at, 0);
            (bytes, JsonOutcome::Err("invalid-json"))
        }),
        // Trailing garbage.
        1 => (record(), proptest::sample::select(&[" x", ",{}", "}", "{}", "\"", "\0"][..]))
            .prop_map(|((l, _), tail)| (
                (l + tail).into_bytes(),
                JsonOutcome::Err("invalid-json"),
            )),
        // JSON that is not an object.
        1 => proptest::sample::select(
            &["[]", "[1, 2]", "\"text\"", "3", "null", "true", "{", "}", "{\"text\"}"][..],
        )
        .prop_map(|l| (l.as_bytes().to_vec(), JsonOutcome::Err("invalid-json"))),
    ]
}

/// A JSON-lines file: lines, each ended by `\n` or `\r\n`, the last perhaps
/// by nothing; and what each line number should give.
fn json_file() -> impl Strategy<Value = (Vec<u8>, Vec<JsonOutcome>)> {
    (
        proptest::collection::vec((json_line(), any::<bool>()), 0..12),
        any::<bool>(),
    )
        .prop_map(|(lines, last_ended)| {
            let mut bytes = Vec::new();
            let mut outcomes = Vec::new();
            let count = lines.len();
            for (i, ((line, outcome), crlf)) in lines.into_iter().enumerate() {
                bytes.extend_from_slice(&line);
                if i + 1 < count || last_ended {
                    bytes.extend_from_slice(if crlf { b"\r\n" } else { b"\n" });
                }
                outcomes.push(outcome);
            }
            (bytes, outcomes)
        })
}

// ---------------------------------------------------------------------------
// The properties.

proptest! {
    #![proptest_config(config(2000))]

    /// Arbitrary bytes.
    #[test]
    fn arbitrary_bytes(
        bytes in proptest::collection::vec(any::<u8>(), 0..600),
        max_bytes in max_bytes(),
    ) {
        check_all(&bytes, max_bytes, &|_| JsonOutcome::Any)?;
    }

    /// Bytes made of JSON tokens, control characters and invalid UTF-8.
    #[test]
    fn json_ish_tokens(bytes in json_ish_bytes(), max_bytes in max_bytes()) {
        check_all(&bytes, max_bytes, &|_| JsonOutcome::Any)?;
    }

}

proptest! {
    #![proptest_config(config(1000))]

    /// Valid, truncated, non-UTF-8 and otherwise broken records.
    #[test]
    fn json_lines((bytes, outcomes) in json_file(), max_bytes in max_bytes()) {
        let outcome = |line: u64| outcomes[line as usize - 1].clone();
        check_all(&bytes, max_bytes, &outcome)?;
    }
}

proptest! {
    #![proptest_config(config(100))]

    /// Long files, past the binary probe and the reader's buffers, with
    /// lines longer than them.
    #[test]
    fn long_lines(
        (bytes, outcomes) in json_file(),
        long in proptest::collection::vec((0usize..24, 1usize..200_000, any::<bool>()), 0..4),
        max_bytes in prop_oneof![Just(100_000u64), Just(1 << 20), 0u64..64],
    ) {
        // Replace some lines by long records or long runs of one byte.
        let mut lines: Vec<(Vec<u8>, JsonOutcome)> = bytes
            .split(|&b| b == b'\n')
            .map(|l| l.to_vec())
            .zip(outcomes.iter().cloned().chain(std::iter::repeat(JsonOutcome::Any)))
            .collect();
        for (at, len, json) in long {
            if lines.is_empty() {
                break;
            }
            let at = at % lines.len();
            lines[at] = if json {
                let text = "é".repeat(len / 2);
                (
                    format!("{{\"text\":\"{text}\"}}").into_bytes(),
                    JsonOutcome::Doc { text, id: None },
                )
            } else {
                (vec![b'a'; len], JsonOutcome::Err("invalid-json"))
            };
        }
        let outcomes: Vec<JsonOutcome> = lines.iter().map(|(_, o)| o.clone()).collect();
        let bytes = lines.into_iter().map(|(l, _)| l).collect::<Vec<_>>().join(&b'\n');
        let outcome = |line: u64| outcomes[line as usize - 1].clone();
        check_all(&bytes, max_bytes, &outcome)?;
    }

    /// A gzip file cut short reads as a prefix of the whole, then an I/O
    /// error that names the file; garbage that is not gzip is an I/O error.
    #[test]
    fn truncated_gzip((bytes, outcomes) in json_file(), cut in any::<usize>()) {
        let files = Files::new();
        let options = ReadOptions::default();
        let max_bytes = options.max_bytes_value();
        let outcome = |line: u64| outcomes[line as usize - 1].clone();
        let expected = expect_lines(&bytes, &files.gz, max_bytes, Some(&outcome));
        let gz = gzip(&bytes);
        let cut = cut % gz.len();
        std::fs::write(&files.gz, &gz[..cut]).unwrap();
        let bound = bytes.len() + 2;
        let items = read(&files.gz, &options, bound);
        let (last, prefix) = match items.split_last() {
            Some((Err(e), prefix)) if e.kind_name() == "io" => (Some(e), prefix),
            _ => (None, &items[..]),
        };
        prop_assert!(prefix.len() <= expected.len());
        check_items(prefix, &expected[..prefix.len()], &files.gz, max_bytes)?;
        match last {
            Some(err) => check_error(err, &files.gz)?,
            // Nothing at all can be read from nothing.
            None => prop_assert!(cut == 0 && items.is_empty(), "{:?}", items),
        }
    }

    /// Bytes that are not gzip at all, in a `.gz` file.
    #[test]
    fn not_gzip(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        let files = Files::new();
        std::fs::write(&files.gz, &bytes).unwrap();
        for item in read(&files.gz, &ReadOptions::default(), bytes.len() + 2) {
            if let Err(err) = item {
                check_error(&err, &files.gz)?;
            }
        }
    }
}

/// Inputs that are, or could easily be, edge cases.
#[test]
fn edge_cases() {
    let long = format!("{{\"text\":\"{}\"}}", "x".repeat(70_000));
    let cases: &[(&[u8], u64)] = &[
        (b"", 10),
        (b"\n", 0),
        (b"\r\n", 0),
        (b"\r", 0),
        (b"\n\n\n{\"text\":\"a\"}", 100),
        (b"{\"text\":\"a\"}\r\n", 11),
        (b"{\"text\":\"a\"}\n", 12),
        (b"\x0b", 10),
        (b"\x0c", 10),
        (b"\0", 10),
        (b"\xef\xbb\xbf{\"text\":\"bom\"}", 100),
        (b"{\"text\":\"\\ud800\"}", 100),
        (b"{\"text\":\"a\",\"text\":\"b\"}", 100),
        (b"{\"text\":\"a\",\"x\":1e999}", 100),
        (b"{\"text\":1e999}", 100),
        (long.as_bytes(), 1 << 20),
        (long.as_bytes(), 65_536),
    ];
    for (bytes, max_bytes) in cases {
        check_all(bytes, *max_bytes, &|_| JsonOutcome::Any)
            .unwrap_or_else(|e| panic!("{:?}: {e}", String::from_utf8_lossy(bytes)));
    }
}

/// Regression: a line of exactly `max_bytes` bytes ended by `\r\n` was
/// rejected as too large, while the same line ended by `\n` was accepted.
#[test]
fn crlf_line_of_max_bytes_is_accepted() {
    let files = Files::new();
    let mut options = ReadOptions::default();
    options.max_bytes(12);
    for ending in ["\n", "\r\n"] {
        std::fs::write(&files.jsonl, format!("{{\"text\":\"a\"}}{ending}")).unwrap();
        let items = read(&files.jsonl, &options, 2);
        assert_eq!(
            items[0]
                .as_ref()
                .map(|d| d.text.as_str())
                .map_err(|e| e.to_string()),
            Ok("a"),
            "ending {ending:?}"
        );
    }
}
