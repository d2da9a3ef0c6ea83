"""neardup.spark.fates over a corpus (Parquet, or JSON lines read with
their schema given) on a local Spark cluster, checked against `neardup
dedup --cluster components` of the same documents.

    bench/spark.sh    # runs this after the CLI; see there

Prints one JSON line: documents, seconds (wall clock of the Spark job,
from reading the file to collecting the dropped ids, once the cluster's
executors are up), kept, whether the
dropped set equals the CLI's (read from DUPLICATES, the CLI's
duplicates.jsonl), and `phases`: the seconds of the Spark jobs of each of
fates' steps (their descriptions, "neardup: ..."; the rest is the
driver's own work and the gaps between jobs).
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
    start = time.perf_counter()
    spark.sparkContext.setJobDescription("reading the input's schema")
    if corpus.endswith(".parquet"):
        df = spark.read.parquet(corpus)
    else:
        df = spark.read.schema("id string, text string, pos long").json(corpus)
    fated = nds.fates(df, order_col="pos")
    spark.sparkContext.setJobDescription("collect the dropped ids")
    dropped = {r.id for r in fated.where("not keep").select("id").collect()}
    seconds = time.perf_counter() - start
    spark.sparkContext.setJobDescription("counting the documents (after the clock)")
    n = df.count()
    log = os.path.join(events, spark.sparkContext.applicationId)
    spark.stop()
    cli = {json.loads(line)["id"] for line in open(duplicates, encoding="utf-8")}
    print(json.dumps({"documents": n, "seconds": round(seconds, 3), "kept": n - len(dropped),
                      "dropped": len(dropped), "equal_to_cli": dropped == cli,
                      "phases": phases(log)}), flush=True)
    if dropped != cli:
        sys.exit(f"Spark dropped {len(dropped)}, the CLI {len(cli)}: "
                 f"{len(dropped - cli)} only by Spark, {len(cli - dropped)} only by the CLI")


if __name__ == "__main__":
    main()
