//! Files written whole or not at all.

use std::fs::File;
use std::io::BufWriter;
use std::path::Path;

use anyhow::{Context, Result, bail};

/// Writes `path` through a temporary file in the same directory, renamed
/// over `path` only once `write` succeeded and the data is on disk, so that
/// an interrupted run never leaves a file that looks complete.
pub fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<File>) -> Result<()>,
) -> Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let result = (|| {
        let file =
            File::create(&temp).with_context(|| format!("cannot create {}", temp.display()))?;
        let mut out = BufWriter::new(file);
        write(&mut out)?;
        let file = out.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        std::fs::rename(&temp, path)?;
        Ok(())
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result
}

/// Refuses to write `output` when it is one of `inputs`: the run would
/// replace what it reads.
pub fn refuse_input_as_output<'a>(
    output: &Path,
    inputs: impl IntoIterator<Item = &'a Path>,
) -> Result<()> {
    let Ok(output) = output.canonicalize() else {
        // Not there yet: no input can be it.
        return Ok(());
    };
    for input in inputs {
        if input.canonicalize().is_ok_and(|i| i == output) {
            bail!(
                "{} is an input; write the output to another file",
                output.display()
            );
        }
    }
    Ok(())
}
