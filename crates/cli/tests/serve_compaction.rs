//! `neardup serve --compact-after`: an idle service merges its segments
//! into one, and writes a segment of a former format again.

use std::path::Path;
use std::time::Duration;

use neardup_index::{SEGMENT_FORMAT, Segment};
use serde_json::json;

use crate::serve::{Server, agent, call, documents};
use crate::util::Dir;

/// Waits (up to 30 s) until the service at `url` has done `n` idle
/// compactions and shows one segment.
fn wait_for_compactions(agent: &ureq::Agent, url: &str, n: u32) {
    let segments = || {
        let (_, stats) = call(agent.get(format!("{url}/v1/stats")).call());
        stats["segments"].as_array().map_or(0, Vec::len)
    };
    // The store shows one segment as the compaction ends; the counter is
    // counted once its task has the answer, a moment later.
    let compacted = || {
        let (status, metrics) = call(agent.get(format!("{url}/metrics")).call());
        status == 200
            && metrics
                .as_str()
                .is_some_and(|m| m.contains(&format!("neardup_compactions_total {n}")))
    };
    let mut waited = 0;
    while segments() > 1 || !compacted() {
        assert!(waited < 300, "no compaction after 30 s idle");
        std::thread::sleep(Duration::from_millis(100));
        waited += 1;
    }
}

/// An idle service merges its segments into one, and still stops at once
/// on SIGTERM.
#[test]
fn an_idle_service_compacts_and_stops_on_sigterm() {
    let dir = Dir::new();
    let server = Server::start(
        &dir.path("store"),
        &["--flush-at", "3", "--compact-after", "1"],
    );
    let (agent, url) = (agent(), server.url.clone());
    // Two or three segments: too few for a merge of their tier.
    for i in 0..9u64 {
        let fp = format!("{:016x}", i.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let body = json!({"id": format!("d{i}"), "fingerprint": fp, "mode": "insert"});
        assert_eq!(
            call(agent.post(format!("{url}/v1/documents")).send_json(body)).0,
            201
        );
    }
    let segments = |agent: &ureq::Agent| {
        let (_, stats) = call(agent.get(format!("{url}/v1/stats")).call());
        stats["segments"].as_array().map_or(0, Vec::len)
    };
    // The flushes end in the background, the last a moment after the
    // last answer.
    let mut waited = 0;
    while segments(&agent) < 2 {
        assert!(waited < 100, "fewer than two segments after 10 s");
        std::thread::sleep(Duration::from_millis(100));
        waited += 1;
    }
    wait_for_compactions(&agent, &url, 1);
    assert_eq!(documents(&agent, &url, None), 9);
    server.terminate();
}

/// A store of layout 6 has one segment with no filter of its names: the
/// idle service writes it again in the present format, and its documents
/// stay.
#[test]
fn an_idle_service_writes_a_segment_of_a_former_format_again() {
    let dir = Dir::new();
    let store = dir.path("store");
    std::fs::create_dir(&store).unwrap();
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("../store/tests/golden/store_v6");
    for entry in std::fs::read_dir(golden).unwrap() {
        let from = entry.unwrap().path();
        std::fs::copy(&from, store.join(from.file_name().unwrap())).unwrap();
    }
    let formats = || -> Vec<u32> {
        std::fs::read_dir(&store)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "ndx"))
            .map(|p| Segment::<u64>::open(&p).unwrap().format())
            .collect()
    };
    assert_eq!(formats(), [1]);
    let server = Server::start(&store, &["--store-text", "--compact-after", "1"]);
    let (agent, url) = (agent(), server.url.clone());
    let before = documents(&agent, &url, None);
    wait_for_compactions(&agent, &url, 1);
    assert_eq!(formats(), [SEGMENT_FORMAT]);
    assert_eq!(documents(&agent, &url, None), before);
    let body = json!({"id": "d01", "fingerprint": "0000000000000001", "mode": "insert"});
    let (status, _) = call(agent.post(format!("{url}/v1/documents")).send_json(body));
    assert_eq!(status, 409, "d01 is stored");
    server.terminate();
}
