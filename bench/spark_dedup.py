"""neardup.spark.fates over a JSON-lines corpus on a local Spark cluster,
checked against `neardup dedup --cluster components` of the same file.

    bench/spark.sh    # runs this after the CLI; see there

Prints one JSON line: documents, seconds (wall clock of the Spark job,
from reading the file to collecting the dropped ids), kept, and whether
the dropped set equals the CLI's (read from DUPLICATES, the CLI's
duplicates.jsonl).
"""

import json
import os
import sys
import time

from pyspark.sql import SparkSession

from neardup import spark as nds


def main():
    corpus, duplicates, master = sys.argv[1], sys.argv[2], sys.argv[3]
    os.environ["PYSPARK_PYTHON"] = sys.executable
    spark = (
        SparkSession.builder.master(master)
        .appName("neardup-bench")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", os.environ.get("PARTITIONS", "16"))
        .config("spark.driver.memory", "2g")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    start = time.perf_counter()
    df = spark.read.json(corpus)
    fated = nds.fates(df, order_col="pos")
    dropped = {r.id for r in fated.where("not keep").select("id").collect()}
    seconds = time.perf_counter() - start
    n = df.count()
    cli = {json.loads(line)["id"] for line in open(duplicates, encoding="utf-8")}
    print(json.dumps({"documents": n, "seconds": seconds, "kept": n - len(dropped),
                      "dropped": len(dropped), "equal_to_cli": dropped == cli}), flush=True)
    spark.stop()
    if dropped != cli:
        sys.exit(f"Spark dropped {len(dropped)}, the CLI {len(cli)}: "
                 f"{len(dropped - cli)} only by Spark, {len(cli - dropped)} only by the CLI")


if __name__ == "__main__":
    main()
