#!/usr/bin/env python3
"""Fit software.inference_matmul_share of the fastertransformer profile on its public rows.

Model (core/cost/roofline.cpp): an inference GEMM's compute roof is the device's calibrated
matmul rate x the share; memory-bound GEMMs (decode's weight streaming), attention, element-wise
kernels and communication are not scaled, so the share is seen in the prompt phase and in the
decode GEMMs of large batches. One parameter on a 0.02 grid, least mean |relative error| over the
FasterTransformer rows of tests/validation/data/infer_public.jsonl (the Megatron baseline rows,
marked in inference.csv's framework column, are left out).

Sources for leave-one-source-out (fitlib.loso): the guide's tables, each measured on its own
(the GPT-175B table served through Triton, the GPT-20B table at TP 1). The other
FasterTransformer tables of infer_heldout.jsonl (GPT-20B at TP 2-8, GPT-89B, GPT-6.7B,
Megatron-530B) are predicted with the profile named and every value, never fitted on, and printed
apart: they are not independent evidence (tests/validation/data/not_independent.json: other
tables of the same guide, probably part of the measurement withheld from the project).

Usage: python3 scripts/fit_inference_share.py [--cli path/to/optimus]   (the CLI built from this tree)
Standard library only.
"""
import json

from fitlib import (DATA, ScriptParser, grid_report, loso_grid, max_abs, mean_abs, metric, optimised_inference_rows,
                    print_loso, run)

PROFILE = "fastertransformer"


def table(row):
    """The guide's table a row comes from: the model size in its id (ft_175b_..., ft_20b_...)."""
    return row["group"] + ", " + row["id"].split("_")[1]


def main():
    cli = ScriptParser(__doc__).parse_args().cli
    rows = [r for r in optimised_inference_rows() if r["scenario"].get("software") == PROFILE]
    profile = json.loads(run(cli, ["preset", "software", PROFILE]))

    def err(r, v):
        """Row r's relative error with the profile inlined and its share set to v."""
        scenario = json.loads(json.dumps(r["scenario"]))
        scenario["software"] = json.loads(json.dumps(profile))
        scenario["software"].setdefault("software", {})["inference_matmul_share"] = v
        out = json.loads(run(cli, ["predict", "-", "--json"], json.dumps(scenario)))
        return None if "error" in out else metric(out, r["metric"]) / r["expected"] - 1

    grid = [round(0.5 + 0.02 * i, 2) for i in range(26)]  # 0.50 ... 1.00
    errors = {v: [err(r, v) for r in rows] for v in grid}
    # The reference (no fit) is 1.0; report against it.
    ref_first = list(reversed(grid))
    grid_report("all FasterTransformer rows", list(range(len(rows))), ref_first, errors, "")
    sources = [table(r) for r in rows]
    for src in sorted(set(sources)):
        grid_report(src, [k for k in range(len(rows)) if sources[k] == src], ref_first, errors, "")
    result = loso_grid(ref_first, errors, sources, 1.0)
    print_loso(f"inference_matmul_share of {PROFILE}, each table left out", result)

    # The guide's other tables (not independent: not_independent.json), run with the profile they name.
    held = [json.loads(line) for line in open(DATA / "infer_heldout.jsonl") if line.strip()]
    held = [r for r in held if r["group"].startswith("FasterTransformer")]
    for r in held:
        r["scenario"]["software"] = PROFILE
    print("\nthe guide's other tables (never fitted on; not independent evidence), mean / max |err|:")
    for v in (1.0, result["value"]):
        errs = [err(r, v) for r in held]
        print(f"  share {v}: {len(errs)} rows {100 * mean_abs(errs):.1f}% / {100 * max_abs(errs):.1f}%")
        for g in sorted({r["group"] for r in held}):
            e = [errs[k] for k, r in enumerate(held) if r["group"] == g]
            print(f"    {g[:70]:70s} {len(e):3d} {100 * mean_abs(e):6.1f}% {100 * max_abs(e):6.1f}%")


if __name__ == "__main__":
    main()
