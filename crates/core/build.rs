//! Builds jieba's dictionary tables when the crate is compiled, so that a
//! process meeting Han text decodes them in milliseconds instead of parsing
//! the word list (see `src/segment/han/dictionary.rs`). The modules are the
//! crate's own, compiled here too.

// The build uses the modules' building half; the lookups are the crate's.
#![allow(dead_code)]

#[path = "src/compact.rs"]
mod compact;

#[path = "src/segment"]
mod segment {
    pub(crate) mod han {
        pub(crate) mod building;
        pub(crate) mod dictionary;
        pub(crate) mod prefix_table;
    }
}

fn main() {
    for input in [
        "build.rs",
        "data/jieba_dict.txt.gz",
        "src/compact.rs",
        "src/segment/han/building.rs",
        "src/segment/han/dictionary.rs",
        "src/segment/han/prefix_table.rs",
    ] {
        println!("cargo::rerun-if-changed={input}");
    }
    let dictionary = match segment::han::building::jieba() {
        Ok(dictionary) => dictionary,
        Err(e) => {
            println!("cargo::error=jieba's word list does not parse: {e}");
            return;
        }
    };
    let out = std::env::var_os("OUT_DIR").map(std::path::PathBuf::from);
    let written = out
        .ok_or_else(|| "OUT_DIR is not set".to_string())
        .and_then(|dir| {
            std::fs::write(dir.join("jieba_tables.bin"), dictionary.encode())
                .map_err(|e| e.to_string())
        });
    if let Err(e) = written {
        println!("cargo::error=cannot write the dictionary tables: {e}");
    }
}
