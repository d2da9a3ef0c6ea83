"""The id check of neardup.spark by 64-bit hashes against counting the
ids themselves (what it did before `c9f6968`, and what it still does to
name a repeated id), on the ids and orders of the 10⁶ planted documents
of bench/spark.sh, as they are (9 characters) and made URL-like (89):
three rounds each, alternating, on local-cluster[2,1,1024]; medians.

    bindings/python/.venv/bin/python bench/spark_checks.py

Needs bench/results/spark-planted-1000000.parquet (`bench/spark.sh` writes
it) and a wheel of this checkout in the venv.
"""

import os
import statistics
import sys
import tempfile
import time

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from pyspark.sql import SparkSession

from neardup import _spark_checks as checks

SOURCE = "bench/results/spark-planted-1000000.parquet"


def main():
    long_ids = os.path.join(tempfile.mkdtemp(prefix="spark-checks-"), "long-ids.parquet")
    table = pq.read_table(SOURCE, columns=["id", "pos"])
    url = pc.binary_join_element_wise(
        "https://news.example.org/world/2026/11/27/", table.column("id"), "-a-long-slug-of-the-article-title.html", ""
    )
    pq.write_table(pa.table({"id": url, "pos": table.column("pos")}), long_ids)
    os.environ["PYSPARK_PYTHON"] = sys.executable
    spark = (
        SparkSession.builder.master("local-cluster[2,1,1024]")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "16")
        .config("spark.driver.memory", "2g")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    columns = (("id", "id"), ("pos", "order"))
    for name, path in (("short ids", SOURCE), ("URL-like ids", long_ids)):
        df = spark.read.parquet(path)
        length = df.selectExpr("avg(length(id))").first()[0]
        seconds = {"hashes": [], "values": []}
        for _ in range(3):
            start = time.perf_counter()
            checks._check_unique(df, *columns)
            seconds["hashes"].append(time.perf_counter() - start)
            start = time.perf_counter()
            checks._name_repeated(df, columns)
            seconds["values"].append(time.perf_counter() - start)
        print(
            f"{name} ({length:.0f} characters): by hashes {statistics.median(seconds['hashes']):.2f} s, "
            f"by values {statistics.median(seconds['values']):.2f} s "
            f"(rounds {[round(s, 2) for s in seconds['hashes']]} / {[round(s, 2) for s in seconds['values']]})",
            flush=True,
        )
    spark.stop()


if __name__ == "__main__":
    main()
