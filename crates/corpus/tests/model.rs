//! A model of the readers' formats: what each line or file of arbitrary
//! bytes should give, for the fuzz properties in `fuzz.rs`.

use std::path::Path;

/// The UTF-8 byte-order mark, which the reader drops at the start of a file.
const BOM: &[u8] = b"\xef\xbb\xbf";

/// The bytes of a text file probed for a NUL byte (`BINARY_PROBE` in
/// `src/corpus.rs`).
pub(crate) const BINARY_PROBE: usize = 8 << 10;

// ---------------------------------------------------------------------------
// The model.

/// What one item of the stream should be.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Expect {
    /// A document.
    Doc {
        line: Option<u64>,
        offset: u64,
        text: String,
        id: String,
    },
    /// An error of this kind (`Error::kind_name`), at this line, with this
    /// byte offset for `invalid-utf8` and `binary`.
    Err {
        kind: &'static str,
        line: Option<u64>,
        offset: Option<u64>,
    },
    /// Any outcome of a JSON record: a document, or an `invalid-json`,
    /// `missing-field` or `field-type` error, at this line.
    Record { line: u64 },
}

/// What a JSON line should give, when it is neither blank nor too long.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum JsonOutcome {
    /// A document with this text and id (`None`: the `FILE:LINE` id).
    Doc { text: String, id: Option<String> },
    /// An error of this kind.
    Err(&'static str),
    /// Unknown (arbitrary bytes): any record outcome.
    Any,
}

/// One line of a file as the reader cuts it.
struct RawLine<'a> {
    /// 1-based.
    number: u64,
    /// The offset of its first byte.
    offset: u64,
    /// Its bytes, without the `\n` but with any `\r` before it.
    raw: &'a [u8],
}

impl RawLine<'_> {
    /// The line without its ending (and, on line 1, without a UTF-8
    /// byte-order mark).
    fn content(&self) -> &[u8] {
        let line = self.raw.strip_suffix(b"\r").unwrap_or(self.raw);
        match self.number {
            1 => line.strip_prefix(BOM).unwrap_or(line),
            _ => line,
        }
    }

    /// The length the limit applies to: the line without its ending.
    fn len(&self) -> usize {
        self.raw.strip_suffix(b"\r").unwrap_or(self.raw).len()
    }

    fn is_blank(&self) -> bool {
        self.content().iter().all(u8::is_ascii_whitespace)
    }
}

/// The lines of `bytes`: cut after each `\n`; a last line without one
/// counts unless it is empty.
fn raw_lines(bytes: &[u8]) -> Vec<RawLine<'_>> {
    let mut lines = Vec::new();
    let mut start = 0;
    while start < bytes.len() {
        let (raw, next) = match memchr::memchr(b'\n', &bytes[start..]) {
            Some(i) => (&bytes[start..start + i], start + i + 1),
            None => (&bytes[start..], bytes.len()),
        };
        lines.push(RawLine {
            number: lines.len() as u64 + 1,
            offset: start as u64,
            raw,
        });
        start = next;
    }
    lines
}

/// Whether a line is longer than the limit: the document is the line
/// without its `\n` or `\r\n`.
fn too_long(line: &RawLine<'_>, max_bytes: u64) -> bool {
    line.len() as u64 > max_bytes
}

/// The items of a line-based file: JSON lines when `json` gives each line's
/// outcome, else text lines.
pub(crate) fn expect_lines(
    bytes: &[u8],
    path: &Path,
    max_bytes: u64,
    json: Option<&dyn Fn(u64) -> JsonOutcome>,
) -> Vec<Expect> {
    if json.is_none()
        && let Some(at) = memchr::memchr(0, &bytes[..bytes.len().min(BINARY_PROBE)])
    {
        return vec![Expect::Err {
            kind: "binary",
            line: None,
            offset: Some(at as u64),
        }];
    }
    let mut items = Vec::new();
    for line in raw_lines(bytes) {
        let n = line.number;
        // Twice the limit (counting a `\r` before the `\n`): the rest of
        // the file is not read.
        if line.raw.len() as u64 > max_bytes.saturating_mul(2).saturating_add(1) {
            items.push(Expect::Err {
                kind: "endless-line",
                line: Some(n),
                offset: None,
            });
            return items;
        }
        if too_long(&line, max_bytes) {
            items.push(Expect::Err {
                kind: "too-large",
                line: Some(n),
                offset: None,
            });
            continue;
        }
        if line.is_blank() {
            continue;
        }
        let text = match std::str::from_utf8(line.content()) {
            Ok(text) => text,
            Err(e) => {
                items.push(Expect::Err {
                    kind: "invalid-utf8",
                    line: Some(n),
                    offset: Some(e.valid_up_to() as u64),
                });
                continue;
            }
        };
        let default_id = format!("{}:{n}", path.display());
        let blank = |text: &str| text.trim().is_empty();
        items.push(match json.map(|outcome| outcome(n)) {
            None if blank(text) => blank_text(n),
            Some(JsonOutcome::Doc { text, .. }) if blank(&text) => blank_text(n),
            None => Expect::Doc {
                line: Some(n),
                offset: line.offset,
                text: text.to_string(),
                id: default_id,
            },
            Some(JsonOutcome::Doc { text, id }) => Expect::Doc {
                line: Some(n),
                offset: line.offset,
                text,
                id: id.unwrap_or(default_id),
            },
            Some(JsonOutcome::Err(kind)) => Expect::Err {
                kind,
                line: Some(n),
                offset: None,
            },
            Some(JsonOutcome::Any) => Expect::Record { line: n },
        });
    }
    if items.is_empty() {
        items.push(Expect::Err {
            kind: "empty-file",
            line: None,
            offset: None,
        });
    }
    items
}

/// A record whose text is empty or only whitespace, on line `n`.
fn blank_text(n: u64) -> Expect {
    Expect::Err {
        kind: "blank-text",
        line: Some(n),
        offset: None,
    }
}

/// The item of a whole text file.
pub(crate) fn expect_whole(bytes: &[u8], path: &Path, max_bytes: u64) -> Vec<Expect> {
    if let Some(at) = memchr::memchr(0, &bytes[..bytes.len().min(BINARY_PROBE)]) {
        return vec![Expect::Err {
            kind: "binary",
            line: None,
            offset: Some(at as u64),
        }];
    }
    if bytes.len() as u64 > max_bytes {
        return vec![Expect::Err {
            kind: "too-large",
            line: None,
            offset: None,
        }];
    }
    let bytes = bytes.strip_prefix(BOM).unwrap_or(bytes);
    vec![match std::str::from_utf8(bytes) {
        Ok(text) if text.trim().is_empty() => Expect::Err {
            kind: "empty-file",
            line: None,
            offset: None,
        },
        Ok(text) => Expect::Doc {
            line: None,
            offset: 0,
            text: text.to_string(),
            id: path.display().to_string(),
        },
        Err(e) => {
            let at = e.valid_up_to();
            let line = bytes[..at].iter().filter(|&&b| b == b'\n').count() as u64 + 1;
            Expect::Err {
                kind: "invalid-utf8",
                line: Some(line),
                offset: Some(at as u64),
            }
        }
    }]
}

// ---------------------------------------------------------------------------
// Reading and comparing.
