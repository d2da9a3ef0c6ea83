//! A write's search of the segments, made before it takes the writer's
//! lock.
//!
//! Every insert searches the store for its duplicates, and the writer does
//! it one insert after another while the group commit waits. The segments
//! change only at a flush or a merge, so the caller (a request's thread,
//! in parallel with the others) can search them beforehand; the writer
//! then searches only the recent documents, and drops what was deleted
//! since. If the segments changed in between, it searches them again: the
//! answer is the one a search under the lock gives, either way.

use neardup_index::{Bits, Neighbour};

use crate::error::Result;
use crate::store::Store;
use crate::view::Place;

/// The segments' candidates of one fingerprint, found before its insert
/// is written ([`Store::presearch`]); give it to the insert with
/// [`crate::Insert::presearched`].
#[derive(Clone, Debug)]
pub struct Presearch {
    pub(crate) fingerprint: u128,
    pub(crate) k: u32,
    pub(crate) generation: u64,
    pub(crate) hits: Vec<(Neighbour<String>, Place)>,
}

impl<B: Bits> Store<B> {
    /// Searches the segments for the candidates of an insert of
    /// `fingerprint` within `k` bits, before the insert is written: the
    /// writer then does not (unless a flush or a merge changed the
    /// segments in between). For a caller that writes from many threads
    /// into one group commit.
    ///
    /// ```
    /// use neardup_store::{Insert, Store, StoreOptions, StoreSettings, Write, Written};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let settings = StoreSettings::builder(3).build();
    /// let store = Store::<u64>::open(dir.path(), Some(&settings), StoreOptions::default())?;
    /// store.write(vec![Write::Insert(Insert::new(0xff00, 3).id("a"))], None)?;
    /// let near = Insert::new(0xff01, 3).id("b").presearched(store.presearch(0xff01, 3)?);
    /// let written = store.write(vec![Write::Insert(near)], None)?;
    /// assert!(matches!(&written[0], Written::Inserted { duplicates, .. } if duplicates[0].id == "a"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`crate::Error::KBeyondStore`] when `k` is past the store's.
    pub fn presearch(&self, fingerprint: B, k: u32) -> Result<Presearch> {
        self.check_k(k)?;
        let view = self.inner.read_view();
        Ok(Presearch {
            fingerprint: fingerprint.to_u128(),
            k,
            generation: view.generation,
            hits: view.search_segments(fingerprint, k),
        })
    }
}
