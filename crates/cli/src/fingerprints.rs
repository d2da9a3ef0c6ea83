//! Fingerprint JSON lines (the output of `neardup fingerprint`) read into
//! memory, for the commands that search among fingerprints.

use std::collections::HashMap;
use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use neardup_core::{Fingerprint, Width};
use neardup_corpus::{Corpus, Format, Place, ReadOptions};

/// Fingerprints read from JSON lines, with their ids, all of one width.
pub struct Set {
    pub ids: Vec<String>,
    pub bits: Vec<u128>,
}

impl Set {
    /// Reads the lines of `paths`, taking fields `(fingerprint, id)`: ids
    /// unique, one width throughout (`width`, shared with another set).
    pub fn read(paths: &[PathBuf], fields: (&str, &str), width: &mut Option<Width>) -> Result<Set> {
        let (fingerprint_field, id_field) = fields;
        let mut options = ReadOptions::default();
        options
            .format(Format::JsonLines)
            .text_field(fingerprint_field)
            .id_field(id_field);
        let corpus = Corpus::open(paths, &options)?;
        let mut set = Set {
            ids: Vec::new(),
            bits: Vec::new(),
        };
        let mut seen: HashMap<String, Place> = HashMap::new();
        let mut first_place: Option<Place> = None;
        for doc in corpus.documents() {
            let doc = doc?;
            let fp = Fingerprint::from_hex(doc.text.trim()).with_context(|| {
                format!(
                    "{}: field {fingerprint_field:?} is not a fingerprint; give the output of \
                     `neardup fingerprint`",
                    doc.place
                )
            })?;
            match width {
                Some(w) if *w != fp.width() => bail!(
                    "{}: a {}-bit fingerprint among {}-bit ones (the first at {}); \
                     fingerprint everything with the same --width",
                    doc.place,
                    fp.width().bits(),
                    w.bits(),
                    first_place
                        .as_ref()
                        .map_or_else(|| "the other input".to_string(), Place::to_string)
                ),
                Some(_) => {}
                None => *width = Some(fp.width()),
            }
            if first_place.is_none() {
                first_place = Some(doc.place.clone());
            }
            if let Some(earlier) = seen.get(&doc.id) {
                bail!(
                    "{}: id {:?} was already given at {earlier}; ids must be unique \
                     (use --id-field to pick another field)",
                    doc.place,
                    doc.id
                );
            }
            seen.insert(doc.id.clone(), doc.place.clone());
            set.bits.push(fp.bits());
            set.ids.push(doc.id);
        }
        Ok(set)
    }

    /// The fingerprints as `u64`s (for a 64-bit set).
    pub fn narrow(&self) -> Vec<u64> {
        self.bits.iter().map(|&b| b as u64).collect()
    }
}
