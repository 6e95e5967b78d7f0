#!/usr/bin/env python3
"""Fit inference.serving.request_overhead_ms (core/parallel/plan.h, ServingSpec) on the public
serving rows.

Model (core/predict/serving.cpp): the serving front end adds a fixed host time to every request
outside the GPU's steps (receiving and tokenising it, detokenising and streaming the first token),
so each request's time to first token and end move by it and throughput does not. The overhead is
fitted as one parameter on a 0.5 ms grid, minimising the mean absolute relative error over the
mean-TTFT rows of tests/validation/data/serve_public.jsonl (TensorRT-LLM v0.14 online serving,
Llama 3.1 8B and Llama 3 70B on H100 and H200). Per-model fits are printed too.

Usage: python3 scripts/fit_request_overhead.py path/to/optimus   (the CLI built from this tree)
Standard library only.
"""
import json
import sys

from fitlib import DATA, grid_report, run


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    cli = sys.argv[1]
    rows = [json.loads(line) for line in open(DATA / "serve_public.jsonl") if line.strip()]
    rows = [r for r in rows if r["metric"].startswith("serving.ttft_s")]
    grid = [i / 2 for i in range(0, 25)]

    def predict(row, ms):
        scenario = json.loads(json.dumps(row["scenario"]))
        scenario["inference"]["serving"]["request_overhead_ms"] = ms
        node = json.loads(run(cli, ["predict", "-", "--json"], json.dumps(scenario)))
        for key in row["metric"].split("."):
            node = node[key]
        return node

    errors = {ms: [predict(r, ms) / r["expected"] - 1 for r in rows] for ms in grid}

    def report(label, idx):
        grid_report(label, idx, grid, errors, "ms")

    report("all rows", list(range(len(rows))))
    for model in sorted({r["scenario"]["model"] for r in rows}):
        report(model, [k for k, r in enumerate(rows) if r["scenario"]["model"] == model])


if __name__ == "__main__":
    main()
