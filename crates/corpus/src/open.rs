//! Opening an input: a file or stdin, decompressed by extension.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;

use crate::options::Format;

/// The compression of a file, by its extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Compression {
    None,
    Gzip,
    Zstd,
}

/// The compression and the format a path names.
pub(crate) fn sniff(path: &Path, format: Format) -> (Compression, Format) {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let (compression, inner) = if let Some(inner) = name.strip_suffix(".gz") {
        (Compression::Gzip, inner)
    } else if let Some(inner) = name.strip_suffix(".zst") {
        (Compression::Zstd, inner)
    } else {
        (Compression::None, name)
    };
    let format = match format {
        Format::Auto if inner.ends_with(".jsonl") || inner.ends_with(".ndjson") => {
            Format::JsonLines
        }
        Format::Auto if inner.ends_with(".parquet") => Format::Parquet,
        Format::Auto if inner.ends_with(".csv") || inner.ends_with(".tsv") => Format::Csv,
        Format::Auto => Format::Text,
        given => given,
    };
    (compression, format)
}

/// Whether `path` means standard input.
pub(crate) fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// A buffered reader over the decompressed bytes of `path`.
pub(crate) fn open(path: &Path, compression: Compression) -> io::Result<Box<dyn BufRead + Send>> {
    let raw: Box<dyn Read + Send> = if is_stdin(path) {
        Box::new(io::stdin())
    } else {
        Box::new(File::open(path)?)
    };
    Ok(match compression {
        Compression::None => Box::new(BufReader::with_capacity(1 << 16, raw)),
        Compression::Gzip => Box::new(BufReader::with_capacity(
            1 << 16,
            flate2::read::MultiGzDecoder::new(BufReader::new(raw)),
        )),
        Compression::Zstd => Box::new(BufReader::with_capacity(
            1 << 16,
            zstd::stream::read::Decoder::new(raw)?,
        )),
    })
}

/// One line read by [`read_line_capped`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LineRead {
    /// Bytes consumed, line ending included; 0 at the end of input.
    pub(crate) consumed: u64,
    /// The length of the line without its `\n` or `\r\n`.
    pub(crate) len: u64,
    /// Whether `len` is over the limit (then the line was not kept).
    pub(crate) too_long: bool,
    /// Whether the line went on past twice the limit without an end: it
    /// was left there, unread (`/dev/zero` has no next line to resume at).
    pub(crate) endless: bool,
}

/// Reads one line, without its `\n` or `\r\n`, into `buf` if it has at most
/// `limit` bytes. A longer line is consumed to its end without being kept,
/// so reading resumes at the next line; one that runs past twice the limit
/// is left there, `endless`.
pub(crate) fn read_line_capped(
    reader: &mut dyn BufRead,
    buf: &mut Vec<u8>,
    limit: u64,
) -> io::Result<LineRead> {
    buf.clear();
    let mut consumed = 0u64;
    let mut len = 0u64;
    let mut last = None;
    let mut endless = false;
    loop {
        let available = match reader.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            break;
        }
        let (chunk, done) = match memchr::memchr(b'\n', available) {
            Some(i) => (&available[..i], Some(i + 1)),
            None => (available, None),
        };
        len += chunk.len() as u64;
        if let Some(&b) = chunk.last() {
            last = Some(b);
        }
        // Keep one byte over the limit: it may be the `\r` of `\r\n`.
        if len <= limit.saturating_add(1) {
            buf.extend_from_slice(chunk);
        }
        let used = done.unwrap_or(available.len());
        reader.consume(used);
        consumed += used as u64;
        // Past twice the limit, whether or not its end is in sight: so the
        // rule does not hang on where reads happen to end.
        if len > limit.saturating_mul(2).saturating_add(1) {
            endless = true;
            break;
        }
        if done.is_some() {
            break;
        }
    }
    if last == Some(b'\r') {
        len -= 1;
        if buf.last() == Some(&b'\r') {
            buf.pop();
        }
    }
    let too_long = len > limit;
    if too_long {
        buf.clear();
    }
    Ok(LineRead {
        consumed,
        len,
        too_long,
        endless,
    })
}

/// Copies the lines of the file `path` (decompressed as its name says)
/// whose 1-based numbers `keep` accepts to `out`, byte for byte with their
/// line endings; returns how many were copied. A last line without an end
/// gets a `\n`, so that the copies stay one per line.
///
/// ```
/// use std::io::Write;
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("a.jsonl");
/// std::fs::write(&path, "{\"x\":1}\r\n{\"x\":2}\n{\"x\":3}")?;
/// let mut out = Vec::new();
/// let copied = neardup_corpus::copy_lines(&path, |line| line != 2, &mut out)?;
/// assert_eq!((copied, out.as_slice()), (2, &b"{\"x\":1}\r\n{\"x\":3}\n"[..]));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// [`CopyError::Read`] for an error of reading `path`,
/// [`CopyError::Write`] for one of writing `out` (a full disk, say).
pub fn copy_lines(
    path: &Path,
    mut keep: impl FnMut(u64) -> bool,
    out: &mut impl std::io::Write,
) -> Result<u64, CopyError> {
    let (compression, _) = sniff(path, Format::Text);
    let read = |e| CopyError::Read(path.to_path_buf(), e);
    let mut input = open(path, compression).map_err(read)?;
    let mut line = Vec::new();
    let (mut number, mut copied) = (0u64, 0u64);
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line).map_err(read)? == 0 {
            return Ok(copied);
        }
        number += 1;
        if keep(number) {
            out.write_all(&line).map_err(CopyError::Write)?;
            if line.last() != Some(&b'\n') {
                out.write_all(b"\n").map_err(CopyError::Write)?;
            }
            copied += 1;
        }
    }
}

/// What stopped [`copy_lines`]: its input or its output.
#[derive(Debug, thiserror::Error)]
pub enum CopyError {
    /// Reading the input failed.
    #[error("reading {}: {}", .0.display(), .1)]
    Read(std::path::PathBuf, io::Error),
    /// Writing the output failed.
    #[error("writing: {0}")]
    Write(io::Error),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniffs_extensions() {
        let s = |p: &str| sniff(Path::new(p), Format::Auto);
        assert_eq!(s("a.jsonl"), (Compression::None, Format::JsonLines));
        assert_eq!(s("a.ndjson.gz"), (Compression::Gzip, Format::JsonLines));
        assert_eq!(s("a.txt.zst"), (Compression::Zstd, Format::Text));
        assert_eq!(s("-"), (Compression::None, Format::Text));
        assert_eq!(s("a.parquet"), (Compression::None, Format::Parquet));
        assert_eq!(s("a.parquet.zst"), (Compression::Zstd, Format::Parquet));
        assert_eq!(
            sniff(Path::new("a.txt"), Format::JsonLines).1,
            Format::JsonLines
        );
    }

    /// A full disk is the output's error, not the input's (issue 16).
    #[cfg(target_os = "linux")]
    #[test]
    fn a_full_disk_is_a_write_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.jsonl");
        std::fs::write(&path, "{\"x\":1}\n".repeat(100_000)).unwrap();
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let mut out = std::io::BufWriter::new(full);
        match copy_lines(&path, |_| true, &mut out) {
            Err(CopyError::Write(e)) => assert_eq!(e.raw_os_error(), Some(28), "{e}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn capped_lines() {
        let mut input: &[u8] = b"short\r\nthis line is long\nend\r\neightchr\r\n";
        let mut buf = Vec::new();
        let mut next = |buf: &mut Vec<u8>| {
            let r = read_line_capped(&mut input, buf, 8).unwrap();
            (r.consumed, r.len, r.too_long)
        };
        assert_eq!(next(&mut buf), (7, 5, false));
        assert_eq!(buf, b"short");
        assert_eq!(next(&mut buf), (18, 17, true));
        assert_eq!(next(&mut buf), (5, 3, false));
        assert_eq!(buf, b"end");
        assert_eq!(next(&mut buf), (10, 8, false));
        assert_eq!(buf, b"eightchr");
        assert_eq!(next(&mut buf), (0, 0, false));
    }
}
