//! `neardup serve`'s token: a token file breaking the rules refused before
//! anything is made, the `Authorization` scheme in any case, and the token
//! replaced on SIGHUP.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::serve::{Server, agent, call};
use crate::util::Dir;

const TOKEN: &str = "Zm9vYmFyYmF6cXV4cXV1eA==";
const NEW_TOKEN: &str = "bmV4dC10b2tlbi0xMjM0NQ==";

/// A token file of `mode`, whatever the umask.
pub(crate) fn token_file(dir: &Dir, name: &str, bytes: impl AsRef<[u8]>, mode: u32) -> PathBuf {
    let path = dir.write(name, bytes);
    chmod(&path, mode);
    path
}

fn chmod(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
}

/// `neardup serve` with the token file `token`, which must refuse to
/// start (within 60 s): its exit code and stderr.
fn start_refused(store: &Path, token: &Path) -> (Option<i32>, String) {
    let mut child = crate::util::neardup()
        .args(["serve", "--index"])
        .arg(store)
        .args(["--listen", "127.0.0.1:0", "--token-file"])
        .arg(token)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("neardup runs");
    let deadline = Instant::now() + Duration::from_secs(60);
    while child.try_wait().expect("a status").is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("started with {}", token.display());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let output = child.wait_with_output().expect("exited");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    (output.status.code(), stderr)
}

/// `GET /v1/stats` with `authorization`: the status, the
/// `WWW-Authenticate` header, and the body.
fn stats(url: &str, authorization: Option<&str>) -> (u16, Option<String>, Value) {
    let agent = agent();
    let mut request = agent.get(format!("{url}/v1/stats"));
    if let Some(authorization) = authorization {
        request = request.header("Authorization", authorization);
    }
    let answer = request.call();
    let challenge = answer
        .as_ref()
        .ok()
        .and_then(|r| r.headers().get("www-authenticate"))
        .and_then(|v| v.to_str().ok())
        .map(String::from);
    let (status, body) = call(answer);
    (status, challenge, body)
}

fn status(url: &str, token: &str) -> u16 {
    stats(url, Some(&format!("Bearer {token}"))).0
}

#[test]
fn a_token_file_breaking_the_rules_is_refused_before_the_store_is_made() {
    let dir = Dir::new();
    let store = dir.path("store");
    let line = format!("{TOKEN}\n");
    for (name, bytes, mode, said) in [
        (
            "non-ascii.txt",
            "s3cret-tøken-0123456\n".to_string(),
            0o600,
            "holds a non-ASCII character at byte 9: ",
        ),
        (
            "two-lines.txt",
            format!("{TOKEN}\n{TOKEN}\n"),
            0o600,
            "holds more than one line (a line break at byte 25): ",
        ),
        (
            "blank-line.txt",
            format!("{TOKEN}\n\n"),
            0o600,
            "holds more than one line (a line break at byte 25): ",
        ),
        (
            "short.txt",
            "s3cret-token\n".to_string(),
            0o600,
            "holds a token of 12 characters, fewer than 16: ",
        ),
        (
            "padded.txt",
            format!(" {TOKEN}\n"),
            0o600,
            "holds a space at byte 1: ",
        ),
        ("empty.txt", String::new(), 0o600, "is empty: "),
        (
            "world-writable.txt",
            line.clone(),
            0o666,
            "is writable by others (mode 0666): ",
        ),
        (
            "group-writable.txt",
            line.clone(),
            0o620,
            "is writable by others (mode 0620): ",
        ),
    ] {
        let path = token_file(&dir, name, bytes, mode);
        let (code, stderr) = start_refused(&store, &path);
        assert_eq!(code, Some(2), "{name}: {stderr}");
        let want = format!("neardup: the token file {} {said}", path.display());
        assert!(stderr.starts_with(&want), "{name}: {stderr}");
        let what_to_do = if mode == 0o600 {
            "make one with `head -c 32 /dev/urandom | base64`".to_string()
        } else {
            format!("chmod 600 {}", path.display())
        };
        assert!(stderr.contains(&what_to_do), "{name}: {stderr}");
        assert!(!store.exists(), "{name}: the store was made");
    }
    let (code, stderr) = start_refused(&store, &dir.path("no-such-file"));
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("cannot read the token file"), "{stderr}");
    assert!(!store.exists());
}

#[test]
fn a_readable_token_file_is_warned_of_and_the_scheme_is_any_case() {
    let dir = Dir::new();
    // A line ending of Windows is a line ending.
    let path = token_file(&dir, "t.txt", format!("{TOKEN}\r\n"), 0o644);
    let server = Server::start(
        &dir.path("store"),
        &["--token-file", path.to_str().expect("a path")],
    );
    let shown = path.display();
    let warning = format!(
        "neardup: warning: token file {shown} is readable by others (mode 0644): chmod 600 {shown}"
    );
    assert!(server.said.contains(&warning), "{}", server.said);
    let url = server.url.clone();
    for authorization in [
        format!("Bearer {TOKEN}"),
        format!("bearer {TOKEN}"),
        format!("BEARER {TOKEN}"),
        format!("Bearer    {TOKEN}"),
    ] {
        let (status, _, body) = stats(&url, Some(&authorization));
        assert_eq!(status, 200, "{authorization}: {body}");
    }
    let prefix = &TOKEN[..TOKEN.len() - 1];
    for authorization in [
        None,
        Some(format!("Basic {TOKEN}")),
        Some(TOKEN.to_string()),
        Some(format!("Bearer{TOKEN}")),
        Some(format!("Bearer {prefix}")),
        Some(format!("Bearer {TOKEN}x")),
        Some(format!("Bearer {}", TOKEN.to_lowercase())),
        Some("Bearer ".to_string()),
    ] {
        let (status, challenge, body) = stats(&url, authorization.as_deref());
        assert_eq!(
            (status, challenge.as_deref(), &body["error"]["code"]),
            (401, Some("Bearer"), &Value::from("unauthorized")),
            "{authorization:?}: {body}"
        );
    }
    server.terminate();
}

#[test]
fn sighup_replaces_the_token_and_a_bad_file_keeps_the_old_one() {
    let dir = Dir::new();
    let path = token_file(&dir, "t.txt", format!("{TOKEN}\n"), 0o600);
    let mut server = Server::start(
        &dir.path("store"),
        &["--token-file", path.to_str().expect("a path")],
    );
    let url = server.url.clone();
    assert_eq!(status(&url, TOKEN), 200);
    // Each bad file: said why on stderr, and the old token still the one.
    for (bytes, mode, why) in [
        ("short-token\n".to_string(), 0o600, "fewer than 16"),
        (
            format!("{TOKEN}\n{NEW_TOKEN}\n"),
            0o600,
            "more than one line",
        ),
        (
            format!("{NEW_TOKEN}\n"),
            0o666,
            "is writable by others (mode 0666)",
        ),
    ] {
        std::fs::write(&path, bytes).expect("written");
        chmod(&path, mode);
        server.hangup();
        let line = server.wait_for("SIGHUP");
        assert!(
            line.starts_with("neardup: SIGHUP: the token in use is kept: ")
                && line.contains(why)
                && line.contains(&path.display().to_string()),
            "{why}: {line}"
        );
        assert_eq!(status(&url, TOKEN), 200, "{why}");
        assert_eq!(status(&url, NEW_TOKEN), 401, "{why}");
    }
    // A good one: the new token at once, the old one refused.
    std::fs::write(&path, format!("{NEW_TOKEN}\n")).expect("written");
    chmod(&path, 0o600);
    server.hangup();
    let deadline = Instant::now() + Duration::from_secs(30);
    while (status(&url, TOKEN), status(&url, NEW_TOKEN)) != (401, 200) {
        assert!(Instant::now() < deadline, "the token not replaced in 30 s");
        std::thread::sleep(Duration::from_millis(50));
    }
    let line = server.wait_for("SIGHUP");
    assert!(line.contains("its token is the one in use now"), "{line}");
    server.terminate();
}
