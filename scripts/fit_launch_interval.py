#!/usr/bin/env python3
"""Fit software.launch_interval_us of the system presets on the public inference rows.

Model (core/predict/inference.cpp): every inference kernel costs max(GPU time, interval), the
host-bound regime of an eager runtime. The interval is fitted as one parameter on a 1 us grid,
minimising the mean absolute relative error over the optimised-framework rows of
tests/validation/data/infer_public.jsonl (FasterTransformer and TensorRT-LLM; the Megatron
baseline rows, marked in inference.csv's framework column, are left out). Per-system fits are
printed too. The held-out rows are never read.

Usage: python3 scripts/fit_launch_interval.py path/to/optimus   (the CLI built from this tree)
Standard library only.
"""
import csv
import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "validation" / "data"


def run(cli, args, stdin=None):
    out = subprocess.run([cli, *args], input=stdin, capture_output=True, text=True, check=True)
    return out.stdout


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    cli = sys.argv[1]
    with open(DATA / "inference.csv", newline="") as f:
        baseline = {r["case_id"] for r in csv.DictReader(f) if "baseline" in r["framework"]}
    rows = [json.loads(line) for line in open(DATA / "infer_public.jsonl") if line.strip()]
    rows = [r for r in rows if r["id"].split(":")[0] not in baseline]
    systems = {}

    def predict(row, interval):
        scenario = json.loads(json.dumps(row["scenario"]))
        sid = scenario["system"]
        if sid not in systems:
            systems[sid] = json.loads(run(cli, ["preset", "systems", sid]))
        system = json.loads(json.dumps(systems[sid]))
        system.setdefault("software", {})["launch_interval_us"] = interval
        scenario["system"] = system
        out = json.loads(run(cli, ["predict", "-", "--json"], json.dumps(scenario)))
        node = out
        *parents, last = row["metric"].split(".")
        for key in parents:
            node = node[key]
        return sum(node[k] for k in last.split("+"))

    grid = range(0, 31)
    errors = {i: [predict(r, i) / r["expected"] - 1 for r in rows] for i in grid}

    def mean(es):
        return sum(abs(e) for e in es) / len(es)

    def report(label, idx):
        best = min(grid, key=lambda i: mean([errors[i][k] for k in idx]))
        print(f"{label}: {len(idx)} rows, best {best} us, mean |err| "
              f"{100 * mean([errors[0][k] for k in idx]):.1f}% at 0 -> "
              f"{100 * mean([errors[best][k] for k in idx]):.1f}%")

    report("all systems", list(range(len(rows))))
    for sid in sorted({r["scenario"]["system"] for r in rows}):
        report(sid, [k for k, r in enumerate(rows) if r["scenario"]["system"] == sid])


if __name__ == "__main__":
    main()
