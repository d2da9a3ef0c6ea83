"""neardup.spark.fates over a corpus (Parquet, or JSON lines read with
their schema given) on a local Spark cluster, checked against `neardup
dedup --cluster components` of the same documents.

    bench/spark.sh    # runs this after the CLI; see there

The job runs twice in one application: first on executors that have run
nothing yet (their JVMs load and compile Spark's reading, shuffle and
Arrow code as they go), then again on the same executors, as every job
but an application's first runs on a cluster that lives across jobs.

Prints one JSON line: documents, seconds (wall clock of the first job,
from reading the file to collecting the dropped ids through Arrow, once
the cluster's executors are up), seconds_warm (the same, the second
time), kept, whether the dropped sets equal the CLI's (read from
DUPLICATES, the CLI's duplicates.jsonl), and `phases` / `phases_warm`:
the seconds of the Spark jobs of each of fates' steps (their
descriptions, "neardup: ..."; the rest is the driver's own work and the
gaps between jobs).
"""

import json
import os
import re
import sys
import tempfile
import time

from pyspark.sql import SparkSession

from neardup import spark as nds

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from spark_stages import phases  # noqa: E402


def read(spark, corpus):
    """The corpus as a DataFrame: Parquet, or JSON lines with their schema."""
    if corpus.endswith(".parquet"):
        return spark.read.parquet(corpus)
    return spark.read.schema("id string, text string, pos long").json(corpus)


def timed(spark, corpus):
    """`(seconds, dropped ids, since, until)` of one run of the job: from
    reading the file to collecting the dropped ids (through Arrow, as a
    user's toPandas), and its span in epoch ms for the event log."""
    since = time.time() * 1000
    start = time.perf_counter()
    spark.sparkContext.setJobDescription("reading the input's schema")
    fated = nds.fates(read(spark, corpus), order_col="pos")
    spark.sparkContext.setJobDescription("collect the dropped ids")
    dropped = set(fated.where("not keep").select("id").toPandas()["id"])
    return time.perf_counter() - start, dropped, since, time.time() * 1000


def main():
    corpus, duplicates, master = sys.argv[1], sys.argv[2], sys.argv[3]
    os.environ["PYSPARK_PYTHON"] = sys.executable
    events = os.environ.get("SPARK_EVENTS") or tempfile.mkdtemp(prefix="spark-events-")
    os.makedirs(events, exist_ok=True)
    spark = (
        SparkSession.builder.master(master)
        .appName("neardup-bench")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", os.environ.get("PARTITIONS", "16"))
        .config("spark.driver.memory", "2g")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .config("spark.eventLog.enabled", "true")
        .config("spark.eventLog.dir", "file://" + os.path.abspath(events))
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    # The clock starts once the cluster's executors are up, as they are for
    # any job but an application's first: what is timed is the job, not the
    # start of the executors' JVMs (about 5 s on local-cluster; the runs
    # before this wait, in bench/results/spark.json, include it).
    cluster = re.match(r"local-cluster\[(\d+),", master)
    executors = int(cluster.group(1)) if cluster else 0
    started = time.perf_counter()
    # The driver is one of the block managers counted.
    while spark.sparkContext._jsc.sc().getExecutorMemoryStatus().size() < executors + 1:
        if time.perf_counter() - started > 120:
            sys.exit(f"the local cluster's {executors} executors did not start within 120 s")
        time.sleep(0.1)
    runs = [timed(spark, corpus) for _ in range(2)]
    (seconds, dropped, since, until), (warm, dropped_warm, since_warm, until_warm) = runs
    spark.sparkContext.setJobDescription("counting the documents (after the clock)")
    n = read(spark, corpus).count()
    log = os.path.join(events, spark.sparkContext.applicationId)
    spark.stop()
    cli = {json.loads(line)["id"] for line in open(duplicates, encoding="utf-8")}
    print(json.dumps({"documents": n, "seconds": round(seconds, 3), "seconds_warm": round(warm, 3),
                      "kept": n - len(dropped), "dropped": len(dropped),
                      "equal_to_cli": dropped == cli and dropped_warm == cli,
                      "phases": phases(log, since, until), "phases_warm": phases(log, since_warm, until_warm)}),
          flush=True)
    if dropped_warm != cli:
        sys.exit(f"the second run dropped {len(dropped_warm)}, the CLI {len(cli)}")
    if dropped != cli:
        sys.exit(f"Spark dropped {len(dropped)}, the CLI {len(cli)}: "
                 f"{len(dropped - cli)} only by Spark, {len(cli - dropped)} only by the CLI")


if __name__ == "__main__":
    main()
