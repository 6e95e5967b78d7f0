#!/usr/bin/env python3
"""Fit the serving runtime's two host times (core/scenario/serving_spec.h, ServingSpec) on the public
serving rows: inference.serving.request_overhead_ms (the front end's own time per request) and
inference.serving.step_overhead_ms (the scheduler's host time between two steps, the GPU idle).

Model (core/predict/serving.cpp): every step takes the engine's step time plus the step overhead;
every request's first token and end come the request overhead later than the scheduler's. The
two are fitted together on a grid, minimising the mean absolute relative error over the 216 rows
of TensorRT-LLM v0.14's online serving table in tests/validation/data/serve_public.jsonl (mean
TTFT, mean inter-token latency and output throughput of Llama 3.1 8B and Llama 3 70B on H100 and
H200). The 126 offline throughput rows of v0.17 are not fitted on and are reported beside, as is
each metric at the best point.

Out of sample: the online table is one publication, so its parts stand in for sources: each
model x GPU configuration (8B / 70B on H100 / H200, 54 rows each) is predicted with the pair
fitted on the other three (leave-one-configuration-out), and the mean of those errors is printed
beside the in-sample one. The InferenceX rows (serve_inferencemax_public.jsonl, SGLang) are not
fitted: SGLang's overlap scheduler hides this host time behind the GPU's step (sglang profile).

Usage: python3 scripts/fit_serving_overheads.py [--cli path/to/optimus]   (the CLI built from this tree)
Standard library only; a few minutes on 2 cores.
"""
import json

from fitlib import DATA, ScriptParser, run


def main():
    cli = ScriptParser(__doc__).parse_args().cli
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
          f"{mean(table[(0, 0)]):.1f}% at (0, 0) -> {mean(table[best]):.1f}% in sample")
    for metric in ("ttft", "tpot", "output_tokens"):
        idx = [k for k, r in enumerate(online) if metric in r["metric"]]
        print(f"  {metric}: {mean([table[(0, 0)][k] for k in idx]):.1f}% -> {mean([table[best][k] for k in idx]):.1f}%")

    # Leave one model x GPU configuration out: fit on the rest, predict it.
    def config(row):
        parts = row["id"].split(":")[0].split("_")
        return f"{parts[2]} {parts[3]}"  # e.g. "llama3p18b h100"

    configs = sorted({config(r) for r in online})
    held_errors = []
    for c in configs:
        inside = [k for k, r in enumerate(online) if config(r) != c]
        out = [k for k, r in enumerate(online) if config(r) == c]
        pick = min(table, key=lambda key: mean([table[key][k] for k in inside]))
        errs = [table[pick][k] for k in out]
        held_errors += errs
        print(f"  left out {c} ({len(out)} rows): fitted step {pick[0]} ms, request {pick[1]} ms on the "
              f"others -> {mean(errs):.1f}% on it (in sample {mean([table[best][k] for k in out]):.1f}%)")
    print(f"leave-one-configuration-out mean |err| {mean(held_errors):.1f}% "
          f"(in sample {mean(table[best]):.1f}%)")
    print(f"offline v0.17 rows (not fitted): {len(offline)}, "
          f"{mean([error(r, 0, 0) for r in offline]):.1f}% at (0, 0) -> "
          f"{mean([error(r, *best) for r in offline]):.1f}%")


if __name__ == "__main__":
    main()
