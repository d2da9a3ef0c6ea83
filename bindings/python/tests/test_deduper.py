"""Incremental dedup from Python: the `Deduper` over batches, an `Index`
opened in place for writing, and the CLI's day-by-day run, each keeping
what one `neardup.dedup` over the whole corpus keeps; and an Index shared
by threads."""

import json
import os
import random
import threading
import time

import numpy as np
import pytest

import neardup
from conftest import conformance_corpus, write_jsonl


def thirds(items):
    third = -(-len(items) // 3)
    return [items[i : i + third] for i in range(0, len(items), third)]


def cli_kept(out):
    return {json.loads(line)["id"] for line in (out / "unique.jsonl").open()}


def test_three_batches_keep_what_one_dedup_keeps(tmp_path, cli):
    ids, texts = conformance_corpus()
    whole = neardup.dedup(texts, ids)
    want = {ids[i] for i in whole.kept_indices}
    assert len(ids) - len(want) > 300
    days = list(zip(thirds(ids), thirds(texts)))

    # The Deduper, its index in a temporary folder.
    deduper = neardup.Deduper()
    got = set()
    for day_ids, day_texts in days:
        kept = deduper.add(day_texts, day_ids)
        got |= {i for i, k in zip(day_ids, kept) if k}
    assert got == want
    assert len(deduper) == len(want)

    # The CLI day by day (--against the index the days before saved).
    cli_got = set()
    for day, (day_ids, day_texts) in enumerate(days):
        write_jsonl(tmp_path / f"day{day}.jsonl", day_ids, day_texts)
        against = ["--against", tmp_path / "cli-idx"] if day else []
        cli("dedup", tmp_path / f"day{day}.jsonl", "--out", tmp_path / f"cli{day}", "--quiet",
            "--save-index", tmp_path / "cli-idx", *against)
        cli_got |= cli_kept(tmp_path / f"cli{day}")
    assert cli_got == want

    # Python and the CLI taking turns on one index directory: day 1 a
    # Deduper writes it, day 2 the CLI runs against it and adds to it, day
    # 3 a Deduper opens it again.
    idx = tmp_path / "shared-idx"
    turns = set()
    with neardup.Deduper(idx) as first:
        kept = first.add(days[0][1], days[0][0])
    turns |= {i for i, k in zip(days[0][0], kept) if k}
    cli("dedup", tmp_path / "day1.jsonl", "--out", tmp_path / "turn1", "--quiet",
        "--against", idx, "--save-index", idx)
    turns |= cli_kept(tmp_path / "turn1")
    third = neardup.Deduper(idx)
    assert len(third) == len(turns)
    result = third.dedup(days[2][1], days[2][0])
    turns |= {i for i, k in zip(days[2][0], result.kept) if k}
    assert turns == want
    # A drop names the kept text it duplicates, from whichever day it was.
    dropped = np.flatnonzero(~result.kept)
    assert all(result.duplicate_of_id[d] in want for d in dropped)
    assert (result.similarity[dropped] >= 0.8).all()


def test_an_index_opened_for_writing_keeps_what_dedup_keeps(tmp_path):
    # Fingerprints alone (verify="none"): each text is kept unless an
    # indexed one is within k bits. The index is opened again for each
    # batch and written in place.
    ids, texts = conformance_corpus()
    want = {ids[i] for i in neardup.dedup(texts, ids, verify="none").kept_indices}
    fingerprints = neardup.Fingerprinter().fingerprint_batch(texts)
    path = tmp_path / "idx"
    neardup.Index(k=8).save(path)
    got = set()
    for part in thirds(list(range(len(ids)))):
        with neardup.Index.open(path) as index:
            for i in part:
                if not index.query([fingerprints[i]])[0]:
                    index.add([ids[i]], [fingerprints[i]])
                    got.add(ids[i])
    assert got == want
    assert len(neardup.Index.open(path, read_only=True)) == len(want)


def test_the_deduper_filters_a_stream_in_batches(tmp_path):
    ids, texts = conformance_corpus()
    want = [texts[i] for i in neardup.dedup(texts).kept_indices]
    read = []

    def stream():
        for text in texts:
            read.append(text)
            yield text

    kept = neardup.Deduper().filter(stream(), batch_size=500)
    first = next(kept)
    assert first == want[0] and len(read) == 500, "one batch read, not the whole stream"
    assert [first, *kept] == want


def test_the_deduper_names_and_refuses(tmp_path):
    with neardup.Deduper(tmp_path / "idx") as d:
        d.add(["the river rose in the night and the town woke to water in every street"])
    d = neardup.Deduper(tmp_path / "idx")
    with pytest.raises(neardup.InputError, match="holds 1 texts already; give ids"):
        d.add(["another text"])
    with pytest.raises(neardup.InputError, match=r'"a" is already in the index'):
        d.add(["x", "y"], ids=["a", "a"])
    d.close()
    with pytest.raises(neardup.StorageError, match="at most 8 bits apart"):
        neardup.Deduper(tmp_path / "idx", k=12)
    d = neardup.Deduper(tmp_path / "idx")
    with pytest.raises(neardup.InputError, match=r"texts\[1\]: null.*\(id 'q'\)"):
        d.add(["p text", None], ids=["p", "q"])
    result = neardup.Deduper(on_null="keep").dedup(["same words here", None, "same words here"])
    assert result.kept.tolist() == [True, True, False] and result.summary["nulls"] == 1
    dropped = neardup.Deduper(on_null="drop").add(["same words here", None])
    assert dropped.tolist() == [True, False]
    # Integer ids come back as given.
    numbered = neardup.Deduper().dedup(["same words here", "same words here"], ids=[7, 9])
    assert numbered.duplicate_of_id == [None, 7]


@pytest.mark.parametrize("opened", [False, True], ids=["memory", "store"])
def test_threads_query_while_one_adds(tmp_path, opened):
    # 8 threads query while one adds, for 10 s (NEARDUP_THREAD_SECONDS:
    # longer for a soak; 30 s was the default, 40 s more of the test
    # command for the two cases): no error, and every answer is the
    # brute-force answer over the entries added before the query started,
    # or some added while it ran.
    seconds = float(os.environ.get("NEARDUP_THREAD_SECONDS", "10"))
    rng = random.Random(7)
    k = 4
    queries = [rng.getrandbits(64) for _ in range(64)]
    # Batches of entries near the queries (and some far), added in order:
    # more than 30 s of adds, in memory too.
    batches = []
    for b in range(20_000):
        batch = []
        for j in range(8):
            q = queries[(b * 8 + j) % len(queries)]
            flips = rng.sample(range(64), rng.randint(0, 8))
            batch.append((f"e{b}-{j}", q ^ sum(1 << f for f in flips)))
        batches.append(batch)
    # Each query's entries within k, with the batch that adds them: the
    # serial replay of any prefix of the adds.
    names = [e for batch in batches for e, _ in batch]
    prints = np.array([f for batch in batches for _, f in batch], dtype=np.uint64)
    near = {}
    for q in queries:
        apart = np.unpackbits((prints ^ np.uint64(q)).view(np.uint8).reshape(-1, 8), axis=1).sum(axis=1)
        near[q] = [(int(i) // 8, names[i], int(apart[i])) for i in np.flatnonzero(apart <= k)]
    if opened:
        neardup.Index(k=k).save(tmp_path / "idx")
        index = neardup.Index.open(tmp_path / "idx")
    else:
        index = neardup.Index(k=k)
    done = [0]
    stop = threading.Event()
    errors = []

    def truth(q, upto):
        return sorted(((e, d) for b, e, d in near[q] if b < upto), key=lambda x: (x[1], x[0]))

    answers = []

    def add():
        try:
            for batch in batches:
                if stop.is_set():
                    break
                index.add([e for e, _ in batch], [f for _, f in batch])
                done[0] += 1
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)
        stop.set()

    def query(seed):
        r = random.Random(seed)
        try:
            while not stop.is_set():
                q = r.choice(queries)
                before = done[0]
                got = index.query([q])[0]
                after = done[0]
                answers.append((q, before, after, got))
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=query, args=(s,)) for s in range(8)]
    writer = threading.Thread(target=add)
    for t in threads:
        t.start()
    writer.start()
    writer.join(timeout=seconds)
    stop.set()
    writer.join()
    for t in threads:
        t.join()
    assert not errors, errors[:3]
    assert done[0] > 10 and len(answers) > 1000, (done[0], len(answers))
    # Check a sample of the answers against the serial replay.
    wrong = 0
    for q, before, after, got in random.Random(1).sample(answers, 300):
        if not any(got == truth(q, upto) for upto in range(before, after + 2)):
            wrong += 1
    assert wrong == 0
