use std::io::Write;

use super::*;

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, bytes).unwrap();
    path
}

fn read_all(paths: &[PathBuf], options: &ReadOptions) -> Vec<Result<Document>> {
    Corpus::open(paths, options).unwrap().documents().collect()
}

#[test]
fn json_lines_ids_and_errors() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        "a.jsonl",
        b"{\"id\":\"x\",\"text\":\"one\"}\n\n{\"text\":\"two\"}\n{bad json\n{\"body\":\"b\"}\n{\"text\":3}\n{\"id\":5,\"text\":\"six\"}\n",
    );
    let items = read_all(std::slice::from_ref(&path), &ReadOptions::default());
    assert_eq!(items.len(), 6);
    assert_eq!(items[5].as_ref().unwrap().id, "5");
    assert_eq!(items[0].as_ref().unwrap().id, "x");
    let second = items[1].as_ref().unwrap();
    assert_eq!(second.id, format!("{}:3", path.display()));
    assert_eq!(second.offset, 25);
    let bad = items[2].as_ref().unwrap_err();
    assert!(bad.to_string().contains("a.jsonl:4: invalid JSON"), "{bad}");
    assert!(bad.is_record());
    let missing = items[3].as_ref().unwrap_err().to_string();
    assert!(
        missing.contains(":5: no \"text\" field (it has: body)"),
        "{missing}"
    );
    assert!(missing.contains("name the field to read") && !missing.contains("--"));
    assert!(
        items[4]
            .as_ref()
            .unwrap_err()
            .to_string()
            .contains("is a number")
    );
}

#[test]
fn directories_are_walked_in_order_skipping_hidden_and_binary() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "b/2.txt", b"second");
    write(dir.path(), "a.txt", b"first");
    write(dir.path(), ".git/config", b"hidden");
    write(dir.path(), "b/image.png", b"\x89PNG\0\0binary");
    let corpus = Corpus::open(&[dir.path()], &ReadOptions::default()).unwrap();
    let mut docs = corpus.documents();
    let items: Vec<Result<Document>> = docs.by_ref().collect();
    let texts: Vec<&str> = items.iter().flatten().map(|d| d.text.as_str()).collect();
    assert_eq!(texts, ["first", "second"]);
    // The binary file is said, in its place, and skipped whatever the flags.
    let said: Vec<&Error> = items.iter().filter_map(|i| i.as_ref().err()).collect();
    assert!(
        matches!(said[..], [Error::BinaryInDirectory { .. }]),
        "{said:?}"
    );
    assert!(said[0].is_skipped(false));
    assert_eq!(docs.skipped_binary_files(), 1);
}

#[test]
fn a_directory_of_binary_files_has_no_documents() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "x.bin", b"\0\0\0");
    let items = read_all(&[dir.path().to_path_buf()], &ReadOptions::default());
    assert!(matches!(items[0], Err(Error::BinaryInDirectory { .. })));
    let err = items[1].as_ref().unwrap_err().to_string();
    assert!(
        err.contains("no readable documents") && err.contains("1 binary file skipped"),
        "{err}"
    );
    let empty = tempfile::tempdir().unwrap();
    assert!(Corpus::open(&[empty.path()], &ReadOptions::default()).is_err());
}

#[test]
fn binary_given_explicitly_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "x.bin", b"abc\0def");
    let items = read_all(&[path], &ReadOptions::default());
    let err = items[0].as_ref().unwrap_err();
    assert!(matches!(err, Error::Binary { offset: 3, .. }), "{err}");
}

#[test]
fn invalid_utf8_names_line_and_byte() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "latin1.txt", b"ok\nbad \xa3 here");
    let items = read_all(&[path], &ReadOptions::default());
    let err = items[0].as_ref().unwrap_err().to_string();
    assert!(
        err.contains("latin1.txt:2: invalid UTF-8 at byte 7"),
        "{err}"
    );
}

#[test]
fn size_limit_applies_to_files_and_lines() {
    let dir = tempfile::tempdir().unwrap();
    let big = write(dir.path(), "big.txt", &[b'a'; 100]);
    let mut options = ReadOptions::default();
    options.max_bytes(50);
    let items = read_all(std::slice::from_ref(&big), &options);
    assert!(matches!(items[0], Err(Error::TooLarge { size: 100, .. })));
    let lines = write(
        dir.path(),
        "l.txt",
        format!("short\n{}\nend\n", "x".repeat(80)).as_bytes(),
    );
    options.lines(true);
    let items = read_all(&[lines], &options);
    assert_eq!(items.len(), 3);
    assert!(items[1].is_err() && items[2].is_ok());
}

#[test]
fn compressed_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(b"{\"text\":\"zipped\"}\n").unwrap();
    let gz_path = write(dir.path(), "a.jsonl.gz", &gz.finish().unwrap());
    let zst = zstd::encode_all(&b"line one\nline two\n"[..], 3).unwrap();
    let zst_path = write(dir.path(), "b.txt.zst", &zst);
    let mut options = ReadOptions::default();
    options.lines(true);
    let texts: Vec<String> = read_all(&[gz_path, zst_path], &options)
        .into_iter()
        .map(|d| d.unwrap().text)
        .collect();
    assert_eq!(texts, ["zipped", "line one", "line two"]);
}

#[test]
fn missing_file_is_fatal() {
    let err = Corpus::open(&["/no/such/file"], &ReadOptions::default()).unwrap_err();
    assert!(!err.is_record());
    assert!(err.to_string().starts_with("/no/such/file: "), "{err}");
}
