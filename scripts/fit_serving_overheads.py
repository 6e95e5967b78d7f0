#!/usr/bin/env python3
"""Fit the serving runtime's two host times (core/parallel/plan.h, ServingSpec) on the public
serving rows: inference.serving.request_overhead_ms (the front end's own time per request) and
inference.serving.step_overhead_ms (the scheduler's host time between two steps, the GPU idle).

Model (core/predict/serving.cpp): every step takes the engine's step time plus the step overhead;
every request's first token and end come the request overhead later than the scheduler's. The
two are fitted together on a grid, minimising the mean absolute relative error over the 216 rows
of TensorRT-LLM v0.14's online serving table in tests/validation/data/serve_public.jsonl (mean
TTFT, mean inter-token latency and output throughput of Llama 3.1 8B and Llama 3 70B on H100 and
H200). The 126 offline throughput rows of v0.17 are not fitted on and are reported beside, as is
each metric at the best point.

Usage: python3 scripts/fit_serving_overheads.py path/to/optimus   (the CLI built from this tree)
Standard library only; under a minute on 2 cores.
"""
import json
import sys

from fitlib import DATA, run


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    cli = sys.argv[1]
    rows = [json.loads(line) for line in open(DATA / "serve_public.jsonl") if line.strip()]
    online = [r for r in rows if "v0.14" in r["group"]]
    offline = [r for r in rows if "v0.14" not in r["group"]]
    steps = [0, 1, 1.5, 2, 2.5, 3]
    requests = [0, 2, 3, 4, 5, 6]

    def error(row, step_ms, request_ms):
        scenario = json.loads(json.dumps(row["scenario"]))
        scenario["inference"]["serving"]["step_overhead_ms"] = step_ms
        scenario["inference"]["serving"]["request_overhead_ms"] = request_ms
        node = json.loads(run(cli, ["predict", "-", "--json"], json.dumps(scenario)))
        for key in row["metric"].split("."):
            node = node[key]
        return abs(node / row["expected"] - 1)

    def mean(es):
        return 100 * sum(es) / len(es)

    table = {(s, q): [error(r, s, q) for r in online] for s in steps for q in requests}
    best = min(table, key=lambda k: mean(table[k]))
    print(f"online rows: {len(online)}, best step {best[0]} ms, request {best[1]} ms: mean |err| "
          f"{mean(table[(0, 0)]):.1f}% at (0, 0) -> {mean(table[best]):.1f}%")
    for metric in ("ttft", "tpot", "output_tokens"):
        idx = [k for k, r in enumerate(online) if metric in r["metric"]]
        print(f"  {metric}: {mean([table[(0, 0)][k] for k in idx]):.1f}% -> {mean([table[best][k] for k in idx]):.1f}%")
    print(f"offline v0.17 rows (not fitted): {len(offline)}, "
          f"{mean([error(r, 0, 0) for r in offline]):.1f}% at (0, 0) -> "
          f"{mean([error(r, *best) for r in offline]):.1f}%")


if __name__ == "__main__":
    main()
