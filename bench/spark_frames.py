"""Two ways to turn numpy arrays on the driver into a Spark DataFrame, as
neardup.spark does with what it finds there: `createDataFrame` of a pandas
frame (Arrow on), and `neardup._spark_steps._frame` (one broadcast of the
arrays, each partition of a range slicing its part into Arrow). Each is
timed making a frame of 4.5·10⁶ longs and joining it, as a broadcast, to
2·10⁷ rows; three rounds each, alternating, on local-cluster[2,1,1024]
(a driver of 3 GB); medians.

    bindings/python/.venv/bin/python bench/spark_frames.py

Needs a wheel of this checkout in the venv (bench/spark.sh installs one).
"""

import os
import statistics
import sys
import time

import numpy as np
import pandas as pd
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from neardup._spark_steps import _frame


def by_pandas(spark, values):
    spark.conf.set("spark.sql.execution.arrow.pyspark.enabled", "true")
    return spark.createDataFrame(pd.DataFrame({"r": values}), "r long")


def main():
    os.environ["PYSPARK_PYTHON"] = sys.executable
    spark = (
        SparkSession.builder.master("local-cluster[2,1,1024]")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "16")
        .config("spark.driver.memory", "3g")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    spark.range(2).count()
    values = np.arange(4_500_000, dtype=np.int64) * 3
    ways = {"createDataFrame(pandas)": by_pandas, "_frame (a broadcast)": lambda s, v: _frame(s, {"r": v}, "r long")}
    seconds = {name: ([], []) for name in ways}
    for _ in range(3):
        for name, make in ways.items():
            start = time.perf_counter()
            frame = make(spark, values)
            made = time.perf_counter()
            rows = spark.range(0, 20_000_000, numPartitions=4).withColumnRenamed("id", "r")
            joined = rows.join(F.broadcast(frame), "r").count()
            assert joined == len(values), joined
            seconds[name][0].append(made - start)
            seconds[name][1].append(time.perf_counter() - made)
            # The driver keeps each broadcast until its plan is collected.
            del frame, rows
            spark.sparkContext._jvm.System.gc()
    for name, (make, join) in seconds.items():
        print(
            f"{name}: made in {statistics.median(make):.2f} s, joined in {statistics.median(join):.2f} s "
            f"(rounds {[round(s, 2) for s in make]} / {[round(s, 2) for s in join]})",
            flush=True,
        )
    spark.stop()


if __name__ == "__main__":
    main()
