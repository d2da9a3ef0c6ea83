//! Deduplicates JSON lines read from stdin, in memory, with the defaults of
//! `neardup dedup`, and prints `{"id", "duplicate_of"}` for each dropped
//! document (nothing for the kept ones).
//!
//! ```sh
//! cargo run -p neardup --example dedup < samples/bible/kjv.jsonl
//! ```
//!
//! Each line is a JSON object with a `"text"` string and, optionally, an
//! `"id"` (a string or a number; else the line number).

use std::io::{BufRead, Write};
use std::process::ExitCode;

use neardup::{Dedup, Fate, Memory, Silent};

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        // A closed stdout (as in `… | head`) ends the run quietly.
        Err(err)
            if err
                .downcast_ref::<std::io::Error>()
                .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe) =>
        {
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("dedup: {err}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let mut docs: Vec<(String, String)> = Vec::new();
    for (i, line) in std::io::stdin().lock().lines().enumerate() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let place = || format!("stdin:{}", i + 1);
        let record: serde_json::Value =
            serde_json::from_str(&line).map_err(|e| format!("{}: invalid JSON ({e})", place()))?;
        let text = record["text"]
            .as_str()
            .ok_or_else(|| format!("{}: no \"text\" string", place()))?;
        let id = match &record["id"] {
            serde_json::Value::String(id) => id.clone(),
            serde_json::Value::Number(id) => id.to_string(),
            _ => (i + 1).to_string(),
        };
        docs.push((id, text.to_string()));
    }
    let outcome = Dedup::new()?.run(&Memory::new(&docs[..]), &Silent)?;
    let mut out = std::io::stdout().lock();
    for (doc, fate) in docs.iter().zip(outcome.fates()) {
        if let Fate::Duplicate { of, .. } = fate {
            let id = serde_json::to_string(&doc.0)?;
            let kept = serde_json::to_string(&docs[of as usize].0)?;
            writeln!(out, "{{\"id\":{id},\"duplicate_of\":{kept}}}")?;
        }
    }
    eprintln!("dedup: {} documents, {} kept", docs.len(), outcome.unique());
    Ok(())
}
