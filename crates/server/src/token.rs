//! The bearer token: what a token may be, its file read and its
//! permissions checked, the file read again on SIGHUP, and a request's
//! `Authorization` header compared with it.
//!
//! Only the token's SHA-256 digest is kept, and a request's token is
//! compared by its digest: two 32-byte arrays compared in constant time,
//! so that neither how much of a guess was right nor the token's length
//! shows in the time of a refusal. A keyed XXH3 (as `judge` uses for its
//! cache) would hide the length as well, but it is not made to withstand
//! someone choosing inputs to collide with an unseen digest; SHA-256 is,
//! so a match of digests is a match of tokens.

use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Arc, PoisonError, RwLock};

use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// The fewest characters a token may have: 16 random base64 characters
/// are 96 bits, past guessing over HTTP.
///
/// ```
/// assert_eq!(neardup_server::MIN_TOKEN_LEN, 16);
/// ```
pub const MIN_TOKEN_LEN: usize = 16;

/// The most characters a token may have: a longer one is a file named by
/// mistake (and would not fit every proxy's header limit).
///
/// ```
/// assert_eq!(neardup_server::MAX_TOKEN_LEN, 1024);
/// ```
pub const MAX_TOKEN_LEN: usize = 1024;

type Sha256Digest = [u8; 32];

/// The token every request but `/healthz` and `/readyz` must send as
/// `Authorization: Bearer <token>`: one line of visible ASCII (letters,
/// digits, punctuation; no spaces), [`MIN_TOKEN_LEN`] to
/// [`MAX_TOKEN_LEN`] characters.
///
/// A token read from a file ([`Token::from_file`]) is read again when
/// [`serve`](crate::serve) gets SIGHUP, and its clones (in
/// [`ServeOptions`](crate::ServeOptions), in the service) see the new one.
/// Only the token's SHA-256 digest is kept, and `Debug` shows none of it.
///
/// ```
/// use neardup_server::Token;
///
/// let token = Token::new("Zm9vYmFyYmF6cXV4cXV1eA==")?;
/// assert!(!format!("{token:?}").contains("Zm9v"));
/// assert!(Token::new("too short").is_err());
/// # Ok::<(), neardup_server::TokenError>(())
/// ```
#[derive(Clone)]
pub struct Token {
    digest: Arc<RwLock<Sha256Digest>>,
    file: Option<PathBuf>,
}

/// Why a token, or its file, is refused: said for people, with what to do.
///
/// ```
/// use neardup_server::Token;
///
/// let err = Token::new("s3cret token 1234").unwrap_err();
/// assert!(err.to_string().contains("a space at byte 7"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenError(String);

impl fmt::Display for TokenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TokenError {}

impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Token")
            .field("file", &self.file)
            .finish_non_exhaustive()
    }
}

impl Token {
    /// `token` as the token, checked; it is not read again on SIGHUP.
    ///
    /// # Errors
    ///
    /// [`TokenError`] when `token` is not one line of visible ASCII, or is
    /// shorter than [`MIN_TOKEN_LEN`] or longer than [`MAX_TOKEN_LEN`].
    ///
    /// ```
    /// use neardup_server::Token;
    ///
    /// assert!(Token::new("Zm9vYmFyYmF6cXV4cXV1eA==").is_ok());
    /// assert!(Token::new("Zm9vYmFyYmF6cXV4cXV1eA==\n").is_err());
    /// ```
    pub fn new(token: &str) -> Result<Token, TokenError> {
        check(token.as_bytes(), "the token")?;
        Ok(Token {
            digest: Arc::new(RwLock::new(Sha256::digest(token).into())),
            file: None,
        })
    }

    /// The token in the file at `path`: the file's one line, which may end
    /// with `\n` or `\r\n`; nothing is trimmed. On unix, a file others may
    /// write is refused (they would choose the token), and one others may
    /// read is taken, `warn` told so.
    ///
    /// # Errors
    ///
    /// [`TokenError`], naming the file, when it cannot be read, is writable
    /// by others, or does not hold a token as [`Token::new`] takes (the
    /// place of the first wrong byte said, counting from 1 as `cmp` does).
    ///
    /// ```
    /// use neardup_server::Token;
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("token.txt");
    /// std::fs::write(&path, "Zm9vYmFyYmF6cXV4cXV1eA==\n")?;
    /// #[cfg(unix)]
    /// {
    ///     use std::os::unix::fs::PermissionsExt;
    ///     std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))?;
    /// }
    /// let token = Token::from_file(&path, |warning| eprintln!("warning: {warning}"))?;
    /// assert_eq!(token.file(), Some(path.as_path()));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_file(path: &Path, warn: impl FnOnce(&str)) -> Result<Token, TokenError> {
        let (digest, warning) = read(path)?;
        if let Some(warning) = warning {
            warn(&warning);
        }
        Ok(Token {
            digest: Arc::new(RwLock::new(digest)),
            file: Some(path.to_path_buf()),
        })
    }

    /// The file the token is read from, if it is.
    ///
    /// ```
    /// let token = neardup_server::Token::new("Zm9vYmFyYmF6cXV4cXV1eA==")?;
    /// assert_eq!(token.file(), None);
    /// # Ok::<(), neardup_server::TokenError>(())
    /// ```
    pub fn file(&self) -> Option<&Path> {
        self.file.as_deref()
    }

    /// Whether an `Authorization` header's value carries the token.
    pub(crate) fn admits(&self, authorization: &[u8]) -> bool {
        // Past the most a token may be: not it, and not worth hashing.
        let Some(given) = bearer(authorization).filter(|t| t.len() <= MAX_TOKEN_LEN) else {
            return false;
        };
        let given: Sha256Digest = Sha256::digest(given).into();
        let expected = *self.digest.read().unwrap_or_else(PoisonError::into_inner);
        bool::from(given.as_slice().ct_eq(expected.as_slice()))
    }

    /// Reads `path` again: its token replaces this one (in every clone) when
    /// it is right; when not, this one stays. The warning, if any.
    fn reload(&self, path: &Path) -> Result<Option<String>, TokenError> {
        let (digest, warning) = read(path)?;
        *self.digest.write().unwrap_or_else(PoisonError::into_inner) = digest;
        Ok(warning)
    }
}

/// The token of a header value of the Bearer scheme: the scheme in any
/// case (RFC 9110 §11.1), one or more spaces, then the token (token68).
fn bearer(authorization: &[u8]) -> Option<&[u8]> {
    let (scheme, rest) = authorization.split_at_checked(b"bearer".len())?;
    if !scheme.eq_ignore_ascii_case(b"bearer") || rest.first() != Some(&b' ') {
        return None;
    }
    let start = rest.iter().position(|&b| b != b' ')?;
    Some(&rest[start..])
}

/// What a token is, said after each refusal.
fn rule() -> String {
    format!(
        "a token is one line of visible ASCII (letters, digits, punctuation), \
         {MIN_TOKEN_LEN} to {MAX_TOKEN_LEN} characters; make one with \
         `head -c 32 /dev/urandom | base64`"
    )
}

/// Refuses a token that is not one line of visible ASCII of a length
/// allowed; `of` names it ("the token file t.txt").
fn check(token: &[u8], of: &str) -> Result<(), TokenError> {
    for (i, &byte) in token.iter().enumerate() {
        let at = i + 1;
        let what = match byte {
            0x21..=0x7e => continue,
            b'\n' => format!("more than one line (a line break at byte {at})"),
            b'\r' if token.get(at) == Some(&b'\n') => {
                format!("more than one line (a line break at byte {at})")
            }
            b' ' => format!("a space at byte {at}"),
            0x80.. => format!("a non-ASCII character at byte {at}"),
            _ => format!("a control character (0x{byte:02x}) at byte {at}"),
        };
        return Err(TokenError(format!("{of} holds {what}: {}", rule())));
    }
    let what = match token.len() {
        0 => "is empty".to_string(),
        n if n < MIN_TOKEN_LEN => {
            format!("holds a token of {n} characters, fewer than {MIN_TOKEN_LEN}")
        }
        n if n > MAX_TOKEN_LEN => format!("holds more than {MAX_TOKEN_LEN} characters"),
        _ => return Ok(()),
    };
    Err(TokenError(format!("{of} {what}: {}", rule())))
}

/// The digest of the token in the file at `path`, and the warning its
/// permissions call for.
fn read(path: &Path) -> Result<(Sha256Digest, Option<String>), TokenError> {
    let of = format!("the token file {}", path.display());
    let cannot = |e: std::io::Error| TokenError(format!("cannot read {of}: {e}"));
    // Checked before opening: opening a FIFO would wait for a writer.
    if !std::fs::metadata(path).map_err(cannot)?.is_file() {
        return Err(TokenError(format!(
            "{of} is not a regular file: name the file that holds the token"
        )));
    }
    let file = std::fs::File::open(path).map_err(cannot)?;
    let warning = permissions(path, &file.metadata().map_err(cannot)?)?;
    // Enough to see that a file is too long, without reading all of it.
    let mut bytes = Vec::new();
    file.take(MAX_TOKEN_LEN as u64 + 3)
        .read_to_end(&mut bytes)
        .map_err(cannot)?;
    let line = bytes
        .strip_suffix(b"\r\n")
        .or_else(|| bytes.strip_suffix(b"\n"))
        .unwrap_or(&bytes);
    check(line, &of)?;
    Ok((Sha256::digest(line).into(), warning))
}

/// Refuses a file others may write; the warning for one others may read.
#[cfg(unix)]
fn permissions(path: &Path, metadata: &std::fs::Metadata) -> Result<Option<String>, TokenError> {
    use std::os::unix::fs::PermissionsExt;
    let mode = metadata.permissions().mode() & 0o7777;
    let file = path.display();
    if mode & 0o022 != 0 {
        return Err(TokenError(format!(
            "the token file {file} is writable by others (mode {mode:04o}): whoever can \
             write it chooses the token; chmod 600 {file}"
        )));
    }
    Ok((mode & 0o044 != 0).then(|| {
        format!("token file {file} is readable by others (mode {mode:04o}): chmod 600 {file}")
    }))
}

#[cfg(not(unix))]
fn permissions(_: &Path, _: &std::fs::Metadata) -> Result<Option<String>, TokenError> {
    Ok(None)
}

/// Reads the token file again on each SIGHUP, saying on stderr what came
/// of it; nothing for a token not read from a file (SIGHUP then keeps its
/// default: the process ends).
///
/// The signal is listened for when this is called, not when the task
/// first runs: a SIGHUP sent once the service says it is serving must not
/// find SIGHUP's default still in place.
#[cfg(unix)]
pub(crate) fn reload_on_sighup(token: Option<Token>) -> impl Future<Output = ()> {
    use tokio::signal::unix::{SignalKind, signal};
    let listening = token
        .and_then(|t| Some((t.file.clone()?, t)))
        .map(|(path, token)| (signal(SignalKind::hangup()), path, token));
    async move {
        let Some((hangups, path, token)) = listening else {
            return;
        };
        let mut hangups = match hangups {
            Ok(hangups) => hangups,
            Err(e) => {
                eprintln!(
                    "neardup: warning: cannot listen for SIGHUP ({e}): {} will not be read again",
                    path.display()
                );
                return;
            }
        };
        while hangups.recv().await.is_some() {
            let (reloading, from) = (token.clone(), path.clone());
            // A file read may block (a network file system): not on the
            // runtime's threads.
            let read = tokio::task::spawn_blocking(move || reloading.reload(&from))
                .await
                .unwrap_or_else(|e| Err(TokenError(format!("the read failed: {e}"))));
            match read {
                Ok(warning) => {
                    eprintln!(
                        "neardup: SIGHUP: read {} again: its token is the one in use now",
                        path.display()
                    );
                    if let Some(warning) = warning {
                        eprintln!("neardup: warning: {warning}");
                    }
                }
                Err(e) => eprintln!("neardup: SIGHUP: the token in use is kept: {e}"),
            }
        }
    }
}

#[cfg(not(unix))]
pub(crate) fn reload_on_sighup(_: Option<Token>) -> impl Future<Output = ()> {
    std::future::ready(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &str = "Zm9vYmFyYmF6cXV4cXV1eA==";

    fn admits(header: &str) -> bool {
        Token::new(SECRET)
            .expect("a token")
            .admits(header.as_bytes())
    }

    #[test]
    fn the_scheme_is_any_case_and_spaces_before_the_token_any_number() {
        for header in [
            "Bearer Zm9vYmFyYmF6cXV4cXV1eA==",
            "bearer Zm9vYmFyYmF6cXV4cXV1eA==",
            "BEARER Zm9vYmFyYmF6cXV4cXV1eA==",
            "bEaReR Zm9vYmFyYmF6cXV4cXV1eA==",
            "Bearer   Zm9vYmFyYmF6cXV4cXV1eA==",
        ] {
            assert!(admits(header), "{header:?}");
        }
    }

    #[test]
    fn anything_else_is_refused() {
        for header in [
            "",
            "Bearer",
            "Bearer ",
            "Bearer    ",
            "BearerZm9vYmFyYmF6cXV4cXV1eA==",
            "Bearer\tZm9vYmFyYmF6cXV4cXV1eA==",
            " Bearer Zm9vYmFyYmF6cXV4cXV1eA==",
            "Basic Zm9vYmFyYmF6cXV4cXV1eA==",
            "Bearers Zm9vYmFyYmF6cXV4cXV1eA==",
            "Zm9vYmFyYmF6cXV4cXV1eA==",
            // A prefix of the token, the token and more, one byte changed,
            // other case.
            "Bearer Zm9vYmFyYmF6cXV4cXV1eA=",
            "Bearer Zm9vYmFyYmF6cXV4cXV1eA==x",
            "Bearer Zm9vYmFyYmF6cXV4cXV1eA== ",
            "Bearer Zm9vYmFyYmF6cXV4cXV1eB==",
            "Bearer ZM9VYMFYYMF6CXV4CXV1EA==",
        ] {
            assert!(!admits(header), "{header:?}");
        }
        let long = format!("Bearer {SECRET}{}", "=".repeat(2 * MAX_TOKEN_LEN));
        assert!(!admits(&long));
    }

    #[test]
    fn a_token_is_one_line_of_visible_ascii_of_16_characters_or_more() {
        let refused = |token: &str, what: &str| {
            let err = Token::new(token).expect_err(token).to_string();
            assert!(err.starts_with(&format!("the token {what}")), "{err}");
            assert!(err.contains("head -c 32 /dev/urandom | base64"), "{err}");
        };
        refused("", "is empty");
        refused(
            "fifteen-chars-x",
            "holds a token of 15 characters, fewer than 16",
        );
        refused(
            &"x".repeat(MAX_TOKEN_LEN + 1),
            "holds more than 1024 characters",
        );
        refused(" Zm9vYmFyYmF6cXV4cXV1eA==", "holds a space at byte 1");
        refused("Zm9vYmFyYmF6cXV4cXV1eA== ", "holds a space at byte 25");
        refused(
            "Zm9vYmFyYmF6cXV4cXV1eA==\n",
            "holds more than one line (a line break at byte 25)",
        );
        refused(
            "Zm9v\r\nYmFyYmF6cXV4cXV1eA==",
            "holds more than one line (a line break at byte 5)",
        );
        refused(
            "Zm9v\rYmFyYmF6cXV4cXV1eA==",
            "holds a control character (0x0d) at byte 5",
        );
        refused(
            "Zm9v\tYmFyYmF6cXV4cXV1eA==",
            "holds a control character (0x09) at byte 5",
        );
        refused(
            "Zm9v\u{7f}YmFyYmF6cXV4cXV1eA==",
            "holds a control character (0x7f) at byte 5",
        );
        refused(
            "Zm9vYmFyYmF6cXV4cXV1eA==é",
            "holds a non-ASCII character at byte 25",
        );
        assert!(Token::new("sixteen-chars-ok").is_ok());
        assert!(Token::new(&"~".repeat(MAX_TOKEN_LEN)).is_ok());
    }

    #[cfg(unix)]
    fn file(dir: &tempfile::TempDir, bytes: &[u8], mode: u32) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let path = dir.path().join("t.txt");
        std::fs::write(&path, bytes).expect("written");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).expect("chmod");
        path
    }

    #[cfg(unix)]
    fn from_file(path: &Path) -> (Result<Token, TokenError>, Option<String>) {
        let mut warned = None;
        let token = Token::from_file(path, |w| warned = Some(w.to_string()));
        (token, warned)
    }

    #[cfg(unix)]
    #[test]
    fn a_file_may_end_with_one_line_break_and_nothing_else() {
        let dir = tempfile::tempdir().expect("a directory");
        for ending in ["", "\n", "\r\n"] {
            let path = file(&dir, format!("{SECRET}{ending}").as_bytes(), 0o600);
            let (token, warned) = from_file(&path);
            let token = token.expect(ending);
            assert!(
                token.admits(format!("Bearer {SECRET}").as_bytes()),
                "{ending:?}"
            );
            assert_eq!(warned, None);
        }
        for (bytes, what) in [
            (
                format!("{SECRET}\n\n"),
                "more than one line (a line break at byte 25)",
            ),
            (
                format!("{SECRET}\nsecond\n"),
                "more than one line (a line break at byte 25)",
            ),
            (format!("{SECRET} \n"), "a space at byte 25"),
            (format!("  {SECRET}\n"), "a space at byte 1"),
            (
                "short-token\n".to_string(),
                "a token of 11 characters, fewer than 16",
            ),
            ("\n".to_string(), "is empty"),
            (
                format!("\u{feff}{SECRET}\n"),
                "a non-ASCII character at byte 1",
            ),
            ("x".repeat(10_000), "more than 1024 characters"),
        ] {
            let path = file(&dir, bytes.as_bytes(), 0o600);
            let err = from_file(&path).0.expect_err(what).to_string();
            assert!(err.starts_with("the token file "), "{err}");
            assert!(err.contains("t.txt"), "{err}");
            assert!(err.contains(what), "{what}: {err}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_file_others_may_write_is_refused_one_they_may_read_warned_of() {
        let dir = tempfile::tempdir().expect("a directory");
        for mode in [0o666, 0o620, 0o602] {
            let path = file(&dir, SECRET.as_bytes(), mode);
            let err = from_file(&path).0.expect_err("writable").to_string();
            let said = format!("is writable by others (mode {mode:04o}): ");
            assert!(err.contains(&said), "{err}");
            assert!(
                err.ends_with(&format!("chmod 600 {}", path.display())),
                "{err}"
            );
        }
        for mode in [0o644, 0o640, 0o604] {
            let path = file(&dir, SECRET.as_bytes(), mode);
            let (token, warned) = from_file(&path);
            assert!(token.is_ok());
            let want = format!(
                "token file {} is readable by others (mode {mode:04o}): chmod 600 {}",
                path.display(),
                path.display()
            );
            assert_eq!(warned, Some(want));
        }
        let err = from_file(dir.path())
            .0
            .expect_err("a directory")
            .to_string();
        assert!(err.contains("is not a regular file"), "{err}");
        let err = from_file(&dir.path().join("none"))
            .0
            .expect_err("none")
            .to_string();
        assert!(err.starts_with("cannot read the token file "), "{err}");
    }

    #[test]
    fn a_token_not_read_from_a_file_is_not_read_again() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        // Nothing to listen for: the task ends at once.
        runtime.block_on(reload_on_sighup(Some(Token::new(SECRET).expect("a token"))));
        runtime.block_on(reload_on_sighup(None));
    }

    #[cfg(unix)]
    #[test]
    fn a_reload_replaces_the_token_in_every_clone_or_keeps_it() {
        let dir = tempfile::tempdir().expect("a directory");
        let path = file(&dir, format!("{SECRET}\n").as_bytes(), 0o600);
        let token = Token::from_file(&path, |_| {}).expect("a token");
        let guard = token.clone();
        let next = "bmV4dC10b2tlbi0xMjM0NQ==";
        std::fs::write(&path, format!("{next}\n")).expect("written");
        assert_eq!(token.reload(&path), Ok(None));
        assert!(guard.admits(format!("Bearer {next}").as_bytes()));
        assert!(!guard.admits(format!("Bearer {SECRET}").as_bytes()));
        std::fs::write(&path, "short\n").expect("written");
        assert!(token.reload(&path).is_err());
        assert!(guard.admits(format!("Bearer {next}").as_bytes()));
    }
}
