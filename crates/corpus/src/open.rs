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

/// Reads one line (without its `\n` or `\r\n`) into `buf`, keeping at most
/// `limit` bytes. Returns the bytes consumed (0 at the end of input) and
/// whether the line was longer than `limit`; a long line is consumed to its
/// end, so reading resumes at the next line.
pub(crate) fn read_line_capped(
    reader: &mut dyn BufRead,
    buf: &mut Vec<u8>,
    limit: u64,
) -> io::Result<(u64, bool)> {
    buf.clear();
    let mut consumed = 0u64;
    let mut too_long = false;
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
        let room = limit.saturating_sub(buf.len() as u64) as usize;
        if chunk.len() > room {
            too_long = true;
        }
        if !too_long {
            buf.extend_from_slice(chunk);
        }
        let used = done.unwrap_or(available.len());
        reader.consume(used);
        consumed += used as u64;
        if done.is_some() {
            break;
        }
    }
    if buf.last() == Some(&b'\r') {
        buf.pop();
    }
    Ok((consumed, too_long))
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
        assert_eq!(
            sniff(Path::new("a.txt"), Format::JsonLines).1,
            Format::JsonLines
        );
    }

    #[test]
    fn capped_lines() {
        let mut input: &[u8] = b"short\r\nthis line is long\nend";
        let mut buf = Vec::new();
        assert_eq!(
            read_line_capped(&mut input, &mut buf, 8).unwrap(),
            (7, false)
        );
        assert_eq!(buf, b"short");
        assert_eq!(
            read_line_capped(&mut input, &mut buf, 8).unwrap(),
            (18, true)
        );
        assert_eq!(
            read_line_capped(&mut input, &mut buf, 8).unwrap(),
            (3, false)
        );
        assert_eq!(buf, b"end");
        assert_eq!(
            read_line_capped(&mut input, &mut buf, 8).unwrap(),
            (0, false)
        );
    }
}
