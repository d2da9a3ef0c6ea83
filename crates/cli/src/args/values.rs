//! The values of flags that clap cannot check alone: sizes, thread counts,
//! distances and counts, refused at parse time with what to give instead.

/// `--short-words`: a number of words (at least 1), or `all`.
pub(super) fn parse_short_words(text: &str) -> Result<usize, String> {
    match text.trim() {
        "all" => Ok(usize::MAX),
        words => match words.parse::<usize>() {
            Ok(n) if n > 0 => Ok(n),
            _ => Err(format!(
                "{text:?}: give a number of words (50 by default), or all"
            )),
        },
    }
}

/// A number of worker threads: 0 (every core) up to
/// [`neardup_dedup::THREADS_PER_CORE`] per core, as every front checks it.
pub(super) fn parse_threads(text: &str) -> Result<usize, String> {
    let n: usize = text
        .trim()
        .parse()
        .map_err(|_| format!("{text:?} is not a number of threads"))?;
    neardup_dedup::checked_threads(n)
}

/// A distance in bits: below 128, the widest fingerprint (each command
/// checks it against the width it uses).
pub(super) fn parse_k(text: &str) -> Result<u32, String> {
    let k: u32 = text
        .trim()
        .parse()
        .map_err(|_| format!("{text:?} is not a number of bits"))?;
    if k >= 128 {
        return Err(format!(
            "k = {k} bits: fingerprints have 64 bits (128 with --width 128), and k is below that"
        ));
    }
    Ok(k)
}

/// A count or size: a finite number above 0 (1e9 and the like accepted).
pub(super) fn parse_count(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(n) if n.is_finite() && n > 0.0 => Ok(n),
        _ => Err(format!("{text:?} is not a number above 0")),
    }
}

/// A size in bytes: a number, optionally with K, M, G or T (powers of
/// 1024), e.g. `512M`, `1.5G`.
pub(super) fn parse_size(text: &str) -> Result<u64, String> {
    let trimmed = text.trim();
    let lower = trimmed.to_ascii_lowercase();
    let number = lower.trim_end_matches(['b', 'i']);
    let (digits, unit) = match number.char_indices().last() {
        Some((at, c @ ('k' | 'm' | 'g' | 't'))) => (&number[..at], c),
        _ => (number, ' '),
    };
    let scale = match unit {
        'k' => 1u64 << 10,
        'm' => 1 << 20,
        'g' => 1 << 30,
        't' => 1 << 40,
        _ => 1,
    };
    match digits.trim().parse::<f64>() {
        Ok(n) if n.is_finite() && n >= 0.0 && n * (scale as f64) < u64::MAX as f64 => {
            Ok((n * scale as f64) as u64)
        }
        _ => Err(format!(
            "{trimmed:?} is not a size: give bytes, or a number with K, M, G or T (e.g. 2G, 512M)"
        )),
    }
}

/// A memory budget: a size above 0 bytes.
pub(super) fn parse_memory(text: &str) -> Result<u64, String> {
    match parse_size(text)? {
        0 => Err(format!(
            "{:?} is no memory at all: give a budget such as 200M (a run below its floor says \
             so and goes on), or leave --memory out for half the machine's memory",
            text.trim()
        )),
        bytes => Ok(bytes),
    }
}

/// A time in seconds, as a flag gives it and its default is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Seconds(pub std::time::Duration);

impl std::fmt::Display for Seconds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0.as_secs_f64())
    }
}

/// A time in seconds, above 0 and at most a day (decimals accepted: 0.5).
pub(super) fn parse_seconds(text: &str) -> Result<Seconds, String> {
    match text.trim().parse::<f64>() {
        Ok(s) if s > 0.0 && s <= 86_400.0 => Ok(Seconds(std::time::Duration::from_secs_f64(s))),
        _ => Err(format!(
            "{text:?}: give a number of seconds above 0 (at most 86400)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_binary_units() {
        assert_eq!(parse_size("1024"), Ok(1024));
        assert_eq!(parse_size("2G"), Ok(2 << 30));
        assert_eq!(parse_size("512m"), Ok(512 << 20));
        assert_eq!(parse_size("1.5GiB"), Ok(3 << 29));
        assert_eq!(parse_size("0"), Ok(0));
        assert_eq!(parse_memory("200M"), Ok(200 << 20));
        for none in ["0", "0M", "0.0G"] {
            let err = parse_memory(none).unwrap_err();
            assert!(err.contains("no memory at all"), "{err}");
        }
        for bad in ["", "G", "-1G", "two", "1e30T", "NaN"] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn seconds_parse_with_decimals_and_refuse_zero() {
        let half = Seconds(std::time::Duration::from_millis(500));
        assert_eq!(
            parse_seconds("10"),
            Ok(Seconds(std::time::Duration::from_secs(10)))
        );
        assert_eq!(parse_seconds("0.5"), Ok(half));
        // Shown by --help as given.
        assert_eq!(half.to_string(), "0.5");
        for bad in ["0", "-1", "", "1e9", "NaN", "inf", "ten"] {
            assert!(parse_seconds(bad).is_err(), "{bad}");
        }
    }
}
