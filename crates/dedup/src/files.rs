//! Files as a [`Source`]: what `neardup dedup` reads (files, directories,
//! JSON lines, Parquet, gzip and zstd), through `neardup_corpus`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use neardup_corpus::{Corpus, Document, Error as ReadError};

use crate::error::{Error, Result};
use crate::file_identity::FileIdentity;
use crate::progress::{Progress, Skipped};
use crate::source::{Origin, Revisited, Source, SourceDoc};

/// The documents of a [`Corpus`], read on a thread of their own while the
/// run works on the ones before. Invalid records stop the run, or are
/// counted and skipped (on every pass) with `skip_invalid`.
///
/// ```
/// use neardup_corpus::{Corpus, ReadOptions};
/// use neardup_dedup::{Dedup, Files, Silent};
///
/// let dir = tempfile::tempdir()?;
/// let text = "the river rose in the night and the town woke to water in every street";
/// std::fs::write(dir.path().join("a.txt"), text)?;
/// std::fs::write(dir.path().join("b.txt"), text.replace("street", "lane"))?;
/// let files = Files::new(Corpus::open(&[dir.path()], &ReadOptions::default())?, false);
/// let outcome = Dedup::new()?.run(&files, &Silent)?;
/// assert_eq!(outcome.unique(), 1);
/// assert_eq!(files.path(outcome.records()[1].origin().file), Some(dir.path().join("b.txt").as_path()));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Files {
    corpus: Corpus,
    skip_invalid: bool,
    paths: Vec<PathBuf>,
    numbers: HashMap<PathBuf, u32>,
    /// Each file as it was when the run began (`None`: it could not be
    /// read then, which its first reading will say).
    identities: Vec<Option<FileIdentity>>,
}

impl Files {
    /// The documents of `corpus`; with `skip_invalid`, records that cannot
    /// be read are skipped and counted instead of stopping the run.
    pub fn new(corpus: Corpus, skip_invalid: bool) -> Files {
        let paths: Vec<PathBuf> = corpus.files().map(Path::to_path_buf).collect();
        let numbers = paths
            .iter()
            .enumerate()
            .map(|(i, p)| (p.clone(), i as u32))
            .collect();
        let identities = paths.iter().map(|p| FileIdentity::of(p).ok()).collect();
        Files {
            corpus,
            skip_invalid,
            paths,
            numbers,
            identities,
        }
    }

    /// Checks that every file is as it was when these files were opened:
    /// [`Source::revisit`] does, before and after each later pass, and a
    /// caller that reads the files again (to copy what was kept) should too.
    ///
    /// # Errors
    ///
    /// [`Error::FileChanged`] naming the first file that changed.
    pub fn check_unchanged(&self) -> Result<()> {
        for (path, then) in self.paths.iter().zip(&self.identities) {
            if let Some(then) = then
                && FileIdentity::of(path).ok().as_ref() != Some(then)
            {
                return Err(Error::FileChanged { path: path.clone() });
            }
        }
        Ok(())
    }

    /// The corpus read.
    pub fn corpus(&self) -> &Corpus {
        &self.corpus
    }

    /// The files, by their numbers in [`Origin::file`].
    pub fn paths(&self) -> &[PathBuf] {
        &self.paths
    }

    /// The file numbered `file` in [`Origin::file`].
    pub fn path(&self, file: u32) -> Option<&Path> {
        self.paths.get(file as usize).map(PathBuf::as_path)
    }

    fn origin(&self, doc: &Document) -> Origin {
        Origin {
            file: self
                .numbers
                .get(&doc.place.path)
                .copied()
                .unwrap_or(u32::MAX),
            line: doc.place.line,
        }
    }

    /// Whether an error is skipped (and counted) rather than raised.
    fn skips(&self, error: &ReadError) -> bool {
        error.is_skipped(self.skip_invalid)
    }
}

impl Source for Files {
    fn total_bytes(&self) -> Option<u64> {
        self.corpus.total_bytes()
    }

    fn check_unchanged(&self) -> Result<()> {
        Files::check_unchanged(self)
    }

    fn scan(
        &self,
        progress: &dyn Progress,
        visit: &mut dyn FnMut(&[SourceDoc<'_>]) -> Result<()>,
    ) -> Result<Skipped> {
        // A pipe or a device reads once: the run's second pass would wait
        // forever, or read something else.
        if let Some(file) = self
            .paths
            .iter()
            .find(|f| std::fs::metadata(f).is_ok_and(|m| !m.is_file()))
        {
            return Err(Error::NotRegularFile { path: file.clone() });
        }
        let mut skipped = Skipped::default();
        self.corpus.in_batches(|batch| {
            let mut docs = Vec::with_capacity(batch.len());
            for item in batch {
                match item {
                    Ok(doc) => {
                        progress.document(doc.text.len());
                        docs.push(SourceDoc {
                            text: &doc.text,
                            origin: self.origin(doc),
                            key: doc.extra.as_ref(),
                        });
                    }
                    Err(e) if self.skips(e) => {
                        progress.skipped(e);
                        skipped.add(e);
                    }
                    Err(e) => return Err(e.clone().into()),
                }
            }
            visit(&docs)
        })?;
        Ok(skipped)
    }

    fn revisit(
        &self,
        progress: &dyn Progress,
        wanted: &(dyn Fn(u32) -> bool + Sync),
        visit: &mut dyn FnMut(&[Revisited<'_>]) -> Result<()>,
    ) -> Result<usize> {
        self.check_unchanged()?;
        let mut next = 0usize;
        // Read on a thread of its own: the caller works on one document
        // (verification sketches a batch of them on all cores) while the
        // next are read.
        self.corpus.in_batches(|batch| -> Result<()> {
            let mut docs = Vec::new();
            for item in batch {
                match item {
                    Ok(doc) => {
                        progress.document(doc.text.len());
                        if let Ok(number) = u32::try_from(next)
                            && wanted(number)
                        {
                            docs.push(Revisited {
                                number,
                                id: &doc.id,
                                text: &doc.text,
                            });
                        }
                        next += 1;
                    }
                    Err(e) if self.skips(e) => {}
                    Err(e) => return Err(e.clone().into()),
                }
            }
            if docs.is_empty() {
                return Ok(());
            }
            visit(&docs)
        })?;
        self.check_unchanged()?;
        Ok(next)
    }
}
