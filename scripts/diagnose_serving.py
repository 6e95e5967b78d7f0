#!/usr/bin/env python3
"""Diagnosis of serving rows (default: tests/validation/data/serve_trtllm_perf.jsonl): one line per row.

Usage: scripts/diagnose_serving.py [--cli PATH] [FILE.jsonl] [--only SUBSTRING]

For every row: the signed error of its metric (predicted / measured - 1), the serving run's mean
batch and inter-token step, the precision the math ran in, and where the time of one decode step
goes: the step is re-predicted as a static batch of the serving run's mean batch at the mid
context (the engine's operators, CUDA graphs on), its decode operators summed by class (expert
GEMMs; dense projections and the LM head; attention; the rest: norms, router, permutes,
communication) as shares of that step, beside the host time the profile adds to each step
(step_overhead_ms + step_overhead_us_per_request x mean batch). A per-source table (mean and max
absolute error) closes the output. Nothing is fitted; the script only reads predictions.
"""
import json
from collections import defaultdict

from fitlib import ScriptParser, add_rows_argument, metric, run

CLASSES = {
    "experts": ("expert_",),
    "dense": ("qkv_proj", "attn_out_proj", "lm_head", "mlp_", "shared_"),
    "attention": ("attention",),
}


def op_class(name):
    for cls, prefixes in CLASSES.items():
        if any(name.startswith(p) for p in prefixes):
            return cls
    return "other"


def main():
    ap = ScriptParser(__doc__)
    add_rows_argument(ap, "serve_trtllm_perf.jsonl")
    ap.add_argument("--only", metavar="SUBSTRING", help="only the rows whose id contains it")
    a = ap.parse_args()
    cli, path, only = a.cli, a.file, a.only
    rows = [json.loads(line) for line in open(path) if line.strip()]
    software = {}
    by_group = defaultdict(list)
    print(f"{'id':58s} {'err':>7s} {'batch':>6s} {'itl ms':>7s} {'math':>5s} "
          f"{'exp':>4s} {'dense':>5s} {'attn':>5s} {'other':>5s} {'host ms':>7s}")
    for r in rows:
        if only and only not in r["id"]:
            continue
        out = json.loads(run(cli, ["predict", "-", "--json"], json.dumps(r["scenario"])))
        if "error" in out:
            print(f"{r['id']:58s} error {out['error']['code']}")
            continue
        err = metric(out, r["metric"]) / r["expected"] - 1
        by_group[r["group"]].append(err)
        sv = out["serving"]
        static = json.loads(json.dumps(r["scenario"]))
        inf = static["inference"]
        inf.pop("serving")
        inf["batch"] = max(1, round(sv["mean_batch"]))
        inf["cuda_graphs"] = True
        st = json.loads(run(cli, ["predict", "-", "--json"], json.dumps(static)))
        shares = defaultdict(float)
        if "error" not in st:
            for op in st["inference"].get("operators", []):
                if op["phase"] == "decode":
                    shares[op_class(op["name"])] += op["time_s"] * op["count"]
        total = sum(shares.values()) or 1.0
        sw = r["scenario"].get("software")
        host = float("nan")
        if isinstance(sw, str):
            if sw not in software:
                software[sw] = json.loads(run(cli, ["preset", "software", sw])).get("serving", {})
            prof = software[sw]
            host = prof.get("step_overhead_ms", 1.5) + prof.get("step_overhead_us_per_request", 0) * sv["mean_batch"] / 1e3
        print(f"{r['id']:58s} {100 * err:+6.1f}% {sv['mean_batch']:6.0f} {1e3 * sv['mean_itl_s']:7.1f} "
              f"{st.get('inference', {}).get('math_precision', '?'):>5s} "
              + " ".join(f"{100 * shares[c] / total:4.0f}%" for c in ("experts", "dense", "attention", "other"))
              + f" {host:7.1f}")
    print()
    allerr = []
    for g, errs in by_group.items():
        allerr += errs
        print(f"{g:90s} n={len(errs):3d} mean {100 * sum(map(abs, errs)) / len(errs):5.1f}% "
              f"max {100 * max(map(abs, errs)):5.1f}% signed {100 * sum(errs) / len(errs):+5.1f}%")
    if allerr:
        print(f"all rows: n={len(allerr)} mean {100 * sum(map(abs, allerr)) / len(allerr):.1f}%")


if __name__ == "__main__":
    main()
