//! `neardup idf`: document frequencies of a corpus, as an IDF table.

use std::io::Write;
use std::process::ExitCode;

use anyhow::{Context, Result};
use neardup_core::DocumentFrequencies;
use neardup_corpus::Corpus;

use crate::args::IdfArgs;
use crate::progress::Progress;
use crate::report::count;
use crate::{config, pipeline};
use neardup_output::{refuse_input_as_output, write_atomically};

pub fn run(args: &IdfArgs) -> Result<ExitCode> {
    let fingerprinter = config::fingerprinter(&args.settings)?;
    let corpus = Corpus::open(&args.paths, &config::read_options(&args.input))?;
    refuse_input_as_output(&args.out, corpus.files())?;
    let progress = Progress::new(corpus.total_bytes(), args.quiet);
    let mut df = DocumentFrequencies::default();
    let skipped = pipeline::run(
        &corpus,
        args.input.skip_invalid,
        &progress,
        |doc| {
            let features: Vec<String> = fingerprinter
                .weighted_features(&doc.text)
                .into_iter()
                .map(|f| f.text)
                .collect();
            features
        },
        |_, features| {
            df.add_document(features.iter().map(String::as_str));
            Ok(())
        },
    )?;
    progress.finish();
    if skipped.total() > 0 {
        eprintln!("neardup: skipped {}", skipped.describe());
    }
    let table = df.to_idf_table(args.min_df);
    write_atomically(&args.out, |out| {
        out.write_all(table.to_text().as_bytes())?;
        Ok(())
    })
    .with_context(|| format!("cannot write {}", args.out.display()))?;
    if !args.quiet {
        eprintln!(
            "neardup: {}, {} features, {} kept (df >= {}) in {}",
            count(df.documents(), "document", "documents"),
            df.features(),
            table.len(),
            args.min_df,
            args.out.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}
