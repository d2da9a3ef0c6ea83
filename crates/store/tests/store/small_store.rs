//! The store the tests open: `K` bits, a segment every 6 documents,
//! segments merged two by two.

use std::path::Path;

use neardup_store::{Store, StoreOptions, StoreSettings};

pub const K: u32 = 4;

pub fn settings(texts: bool) -> StoreSettings {
    StoreSettings::builder(K).texts(texts).build()
}

pub fn small() -> StoreOptions {
    StoreOptions::builder().flush_at(6).merge_factor(2).build()
}

pub fn open(dir: &Path) -> Store<u64> {
    Store::open(dir, Some(&settings(false)), small()).expect("opens")
}

/// Opens the store again: a merge of the last handle may still be running
/// in its thread, holding the lock for a moment.
pub fn reopen(dir: &Path) -> Store<u64> {
    for _ in 0..500 {
        match Store::open(dir, Some(&settings(false)), small()) {
            Ok(store) => return store,
            Err(e) if e.to_string().contains("another neardup") => {
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            Err(e) => panic!("{e}"),
        }
    }
    panic!("the store stayed locked");
}
