#!/usr/bin/env python3
"""docs/BENCHMARKS.md from the committed result files, bench/results/*.json.

    bench/report.py            # writes docs/BENCHMARKS.md
    bench/report.py --check    # exits 1 when docs/BENCHMARKS.md is not what it would write
    bench/report.py --record NAME --rows FILE --command CMD [--load-before L]
                               # bench/results/NAME.json from a run's JSON lines

One result file per benchmark, one schema (SCHEMA below says each field).
The page holds the current result of each benchmark only, in the files'
`order`; the dated history is docs/BENCHMARKS-LOG.md, which this script
never touches. `--record` is what bench/driver.sh's `bench_record` calls
at the end of a run: it keeps the file's title, order and description,
and replaces the run's provenance and numbers with this run's.

Standard library only.
"""

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "bench", "results")
PAGE = os.path.join(ROOT, "docs", "BENCHMARKS.md")

# The fields of a result file: (name, required, what it holds).
SCHEMA = [
    ("name", True, "the benchmark, as in the file name"),
    ("title", True, "the page's heading for it"),
    ("order", True, "where its section goes on the page (ascending)"),
    ("command", True, "the command that produced the result, as typed"),
    ("date", True, "when it ran (YYYY-MM-DD), or null when the source does not say"),
    ("commit", True, "the commit it ran at, or null when the source does not say"),
    ("machine", True, "the machine: CPU, cores"),
    ("load", True, "how busy the rest of the machine was"),
    ("what", True, "what is measured, in a sentence or a paragraph"),
    ("numbers", True, "the headline numbers: name -> {value, unit, stat, what}"),
    ("tables", False, "tables of the result: [{title, columns, rows}]"),
    ("rows", False, "a recorded run's raw measurements, one JSON object each"),
    ("notes", False, "what a reader needs beside the numbers (list of strings)"),
    ("imported_from", False, "set when the numbers were copied from a document, not recorded by a run"),
]
NUMBER_FIELDS = ("value", "unit", "stat", "what")


def load_results():
    """Every result file, checked against SCHEMA, in page order."""
    results = []
    for file in sorted(os.listdir(RESULTS)):
        if not file.endswith(".json"):
            continue
        path = os.path.join(RESULTS, file)
        with open(path, encoding="utf-8") as f:
            try:
                result = json.load(f)
            except json.JSONDecodeError as e:
                sys.exit(f"{path}: not JSON ({e}); fix the file or delete it")
        problems = check_result(result, file[: -len(".json")])
        if problems:
            sys.exit(f"{path}: " + "; ".join(problems))
        results.append(result)
    return sorted(results, key=lambda r: (r["order"], r["name"]))


def check_result(result, name):
    """What is wrong with `result`, a result file named `name`, if anything."""
    known = {field for field, _, _ in SCHEMA}
    problems = [f"field {f!r} missing" for f, required, _ in SCHEMA if required and f not in result]
    problems += [f"unknown field {f!r} (known: {', '.join(sorted(known))})" for f in result if f not in known]
    if result.get("name") != name:
        problems.append(f"name {result.get('name')!r} is not the file's name {name!r}")
    for key, number in result.get("numbers", {}).items():
        missing = [f for f in NUMBER_FIELDS if f not in number]
        if missing:
            problems.append(f"number {key!r} lacks {', '.join(missing)}")
    for i, table in enumerate(result.get("tables", [])):
        width = len(table.get("columns", []))
        for j, row in enumerate(table.get("rows", [])):
            if len(row) != width:
                problems.append(f"table {i} row {j} has {len(row)} cells for {width} columns")
    return problems


def cell(value):
    """A value as a table cell: numbers with thousands separators."""
    if isinstance(value, bool) or value is None:
        return "" if value is None else str(value).lower()
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,}"
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False)
    return str(value).replace("|", "\\|").replace("\n", " ")


def table(columns, rows):
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return lines


def rows_as_table(rows):
    """A recorded run's raw rows as one table: a column per key, in first-seen order."""
    columns = []
    for row in rows:
        columns += [k for k in row if k not in columns]
    return columns, [[row.get(c) for c in columns] for row in rows]


def section(result):
    name = result["name"]
    out = [f"## {result['title']}", ""]
    out += ["```sh", result["command"], "```", ""]
    out.append(
        f"Result file: [`bench/results/{name}.json`](../bench/results/{name}.json). "
        f"{provenance(result['date'], result['commit'])}; {result['machine']}; "
        f"load: {result['load']}."
    )
    if result.get("imported_from"):
        out.append(
            f"Imported from [{result['imported_from']}](../{result['imported_from']}) "
            "as that document states it, not recorded by a run of the command."
        )
    out += ["", result["what"], ""]
    if result["numbers"]:
        numbers = [
            [n["what"], n["value"], n["unit"], n["stat"]] for n in result["numbers"].values()
        ]
        out += table(["number", "value", "unit", "statistic"], numbers) + [""]
    for t in result.get("tables", []):
        if t.get("title"):
            out += [t["title"], ""]
        out += table(t["columns"], t["rows"]) + [""]
    if result.get("rows"):
        columns, rows = rows_as_table(result["rows"])
        out += ["Every measurement of the run:", ""] + table(columns, rows) + [""]
    for note in result.get("notes", []):
        out += [note, ""]
    return out


def provenance(date, commit):
    """When and at which commit a result was measured, as far as it is known."""
    at = f" at `{commit}`" if commit else ""
    if date:
        return f"Run on {date}{at}" + ("" if commit else " (commit not recorded)")
    if commit:
        return f"Run{at} (date not recorded)"
    return "Date and commit not recorded"


def page(results):
    out = [
        "# Benchmarks",
        "",
        "<!-- Written by bench/report.py from bench/results/*.json: edit those and run it. -->",
        "",
        "The current result of every benchmark, each with the command that",
        "produced it and the result file that holds its numbers. The machine is",
        "shared and noisy: compare ratios within one run, not absolute numbers",
        "across runs, and read the load each run names. How the numbers got",
        "here, run by run, is the dated log: [BENCHMARKS-LOG.md](BENCHMARKS-LOG.md).",
        "Regenerate this page with `bench/report.py`; `bench/report.py --check`",
        "fails when it is out of date.",
        "",
        "| benchmark | command | result file |",
        "|---|---|---|",
    ]
    for r in results:
        anchor = anchor_of(r["title"])
        out.append(
            f"| [{r['title']}](#{anchor}) | `{r['command']}` | "
            f"[`{r['name']}.json`](../bench/results/{r['name']}.json) |"
        )
    out.append("")
    for r in results:
        out += section(r)
    while out[-1] == "":
        out.pop()
    return "\n".join(out) + "\n"


def anchor_of(title):
    """GitHub's anchor for a heading."""
    kept = "".join(c for c in title.lower() if c.isalnum() or c in " -_")
    return kept.replace(" ", "-")


def git(*args):
    try:
        return subprocess.run(
            ["git", *args], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def machine():
    model = None
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{model or platform.processor() or platform.machine()}, {os.cpu_count()} cores"


def load_now():
    try:
        return os.getloadavg()[0]
    except OSError:
        return None


def record(name, rows_path, command, load_before):
    """Writes bench/results/NAME.json from the rows a run just measured."""
    path = os.path.join(RESULTS, f"{name}.json")
    rows = []
    with open(rows_path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError as e:
                    sys.exit(f"{rows_path}:{number}: not a JSON line ({e}); the run's output changed?")
    if not rows:
        sys.exit(f"{rows_path}: no rows; the run measured nothing, so {path} is left as it was")
    old = {}
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            old = json.load(f)
    dirty = git("status", "--porcelain", "--untracked-files=no")
    commit = git("rev-parse", "--short", "HEAD")
    after = load_now()
    load = "1-minute load average "
    load += f"{load_before} before, " if load_before else ""
    load += f"{after:.2f} after" if after is not None else "not known"
    result = {
        "name": name,
        "title": old.get("title", name),
        "order": old.get("order", 100),
        "command": command,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
        "commit": f"{commit} (uncommitted changes)" if commit and dirty else commit,
        "machine": machine(),
        "load": load,
        "what": old.get("what", f"What `{command}` measures: see the script's header."),
        "numbers": {},
        "rows": rows,
        "notes": [
            "Recorded by the command; the headline numbers of the previous result "
            "are in docs/BENCHMARKS-LOG.md and git history."
        ],
    }
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        json.dump(result, f, indent=2, ensure_ascii=False)
        f.write("\n")
    os.replace(path + ".tmp", path)
    print(f"{path}: {len(rows)} rows recorded; run bench/report.py to update docs/BENCHMARKS.md",
          file=sys.stderr)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="exit 1 when docs/BENCHMARKS.md differs from what would be written")
    parser.add_argument("--record", metavar="NAME", help="write bench/results/NAME.json from --rows")
    parser.add_argument("--rows", help="a run's measurements, JSON lines (with --record)")
    parser.add_argument("--command", help="the command that measured them (with --record)")
    parser.add_argument("--load-before", help="the load average when the run began (with --record)")
    args = parser.parse_args()
    if args.record:
        if not args.rows or not args.command:
            parser.error("--record needs --rows and --command")
        record(args.record, args.rows, args.command, args.load_before)
        return 0
    text = page(load_results())
    if args.check:
        try:
            with open(PAGE, encoding="utf-8") as f:
                current = f.read()
        except OSError:
            current = None
        if current != text:
            print("docs/BENCHMARKS.md is not what bench/results/*.json say: run bench/report.py",
                  file=sys.stderr)
            return 1
        return 0
    with open(PAGE + ".tmp", "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(PAGE + ".tmp", PAGE)
    return 0


if __name__ == "__main__":
    sys.exit(main())
