#!/usr/bin/env python3
"""How the public RL rows score against the cap of the assumed mean response, with the
leave-one-source-out table: a check on core/rl/rl.cpp kResponseMeanCap, not a fit it takes.

Model (core/rl/rl.cpp limit_distribution): a whole-number rl.response_len is the longest response
a rollout may generate; the responses follow the truncated exponential below it with mean
min(limit / 4, cap). The engine ships cap = 2,048 tokens, set from published means (docs/rl.md,
"Lengths: limits and means"), not from these rows. This script writes each whole-number limit of
tests/validation/data/rl_public.jsonl as {"mean": min(limit / 4, cap), "max": limit} (the same
prediction: the unit test RlPrior.TheAssumedMeanResponseStopsGrowingWithTheLimit checks it) for
each cap on a grid, predicts every row, and prints the grid and fitlib.loso's table: each
source's rows predicted with the cap fitted on the other sources alone (the reference, 2,048, for
none). A source is a row's group.

Usage: python3 scripts/fit_rl_response_cap.py path/to/optimus   (the CLI built from this tree)
Standard library only.
"""
import json
import sys

from fitlib import DATA, loso_grid, metric, print_loso, run

NO_CAP = 10**9
GRID = [512, 768, 1024, 1536, 2048, 3072, 4096, 6144, NO_CAP]
SHIPPED = 2048


def with_cap(scenario, cap):
    s = json.loads(json.dumps(scenario))
    limit = s["rl"].get("response_len")
    if isinstance(limit, int) and limit >= 8:  # kShortestTail: below it a limit is the length
        s["rl"]["response_len"] = {"mean": min(limit / 4, cap), "max": limit}
    return s


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    cli = sys.argv[1]
    rows = [json.loads(line) for line in open(DATA / "rl_public.jsonl") if line.strip()]
    cache = {}

    def error(row, cap):
        text = json.dumps(with_cap(row["scenario"], cap), sort_keys=True)
        if text not in cache:
            cache[text] = json.loads(run(cli, ["predict", "-", "--json"], text))
        out = cache[text]
        return None if "error" in out else metric(out, row["metric"]) / row["expected"] - 1

    errors = {cap: [error(r, cap) for r in rows] for cap in GRID}
    print("cap (tokens)  mean |err| over all rows")
    for cap in GRID:
        es = [abs(e) if e is not None else 1.0 for e in errors[cap]]
        print(f"  {'none' if cap == NO_CAP else cap:>10}  {100 * sum(es) / len(es):6.1f}%")
    sources = [r["group"] for r in rows]
    print_loso("response mean cap", loso_grid(GRID, errors, sources, reference=SHIPPED), "tokens")


if __name__ == "__main__":
    main()
