"""The Spark jobs of one application's event log, summed by description:
how long neardup.spark's steps took (each sets its jobs' description,
"neardup: ..."), with their shuffles.

    python bench/spark_stages.py EVENT_LOG        # a table
    (bench/spark_dedup.py calls phases() for its JSON line)
"""

import json
import sys


def jobs(path, since=0, until=float("inf")):
    """`(description, seconds, shuffle rows written, shuffle MB written)`
    of each job submitted between `since` and `until` (epoch ms), in the
    order they started."""
    started, ended, stages = {}, {}, {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            e = json.loads(line)
            kind = e["Event"]
            if kind == "SparkListenerJobStart":
                what = (e.get("Properties") or {}).get("spark.job.description") or "(no description)"
                started[e["Job ID"]] = (e["Submission Time"], what, e["Stage IDs"])
            elif kind == "SparkListenerJobEnd":
                ended[e["Job ID"]] = e["Completion Time"]
            elif kind == "SparkListenerStageCompleted":
                info = e["Stage Info"]
                sums = {a["Name"]: a.get("Value") for a in info.get("Accumulables", [])}
                stages[info["Stage ID"]] = (
                    int(sums.get("internal.metrics.shuffle.write.recordsWritten") or 0),
                    int(sums.get("internal.metrics.shuffle.write.bytesWritten") or 0),
                )
    for job, (at, what, ids) in sorted(started.items(), key=lambda j: j[1][0]):
        if not since <= at < until:
            continue
        rows = sum(stages.get(s, (0, 0))[0] for s in ids)
        size = sum(stages.get(s, (0, 0))[1] for s in ids)
        yield what, (ended.get(job, at) - at) / 1000, rows, size / 1e6


def phases(path, since=0, until=float("inf")):
    """Seconds, shuffle rows and MB per description, in order of first job
    (of the jobs submitted between `since` and `until`, epoch ms).
    Jobs of one step may overlap (Spark runs a join's sides at once), so
    a step's seconds are from its first job's start to its last job's end."""
    spans = {}
    with open(path, encoding="utf-8") as f:
        events = [json.loads(line) for line in f]
    starts = {}
    for e in events:
        if e["Event"] == "SparkListenerJobStart":
            what = (e.get("Properties") or {}).get("spark.job.description") or "(no description)"
            if since <= e["Submission Time"] < until:
                starts[e["Job ID"]] = (what, e["Submission Time"])
    for e in events:
        if e["Event"] == "SparkListenerJobEnd" and e["Job ID"] in starts:
            what, at = starts[e["Job ID"]]
            first, last = spans.get(what, (at, at))
            spans[what] = (min(first, at), max(last, e["Completion Time"]))
    shuffled = {}
    for what, _, rows, size in jobs(path, since, until):
        r, s = shuffled.get(what, (0, 0.0))
        shuffled[what] = (r + rows, s + size)
    return {
        what: {"seconds": round((last - first) / 1000, 1), "shuffle_rows": shuffled[what][0],
               "shuffle_mb": round(shuffled[what][1], 1)}
        for what, (first, last) in sorted(spans.items(), key=lambda s: s[1][0])
    }


if __name__ == "__main__":
    for what, p in phases(sys.argv[1]).items():
        print(f"{p['seconds']:8.1f} s {p['shuffle_rows']:>12} rows {p['shuffle_mb']:9.1f} MB  {what}")
