#!/usr/bin/env python3
"""Fit software.launch_interval_us of the system presets on the public inference rows.

Model (core/predict/inference.cpp): every inference kernel costs max(GPU time, interval), the
host-bound regime of an eager runtime. The interval is fitted as one parameter on a 1 us grid,
minimising the mean absolute relative error over the optimised-framework rows of
tests/validation/data/infer_public.jsonl (FasterTransformer and TensorRT-LLM; the Megatron
baseline rows, marked in inference.csv's framework column, are left out). Per-system fits are
printed too, and the leave-one-source-out table (fitlib.loso): each source's rows (the
FasterTransformer guide, TensorRT-LLM v0.5's first-token table) predicted with the interval fitted
on the other source's rows alone. The held-out rows are never read.

Usage: python3 scripts/fit_launch_interval.py [--cli path/to/optimus]   (the CLI built from this tree)
Standard library only.
"""
from fitlib import ScriptParser, SoftwareTrial, grid_report, loso_grid, optimised_inference_rows, print_loso


def main():
    cli = ScriptParser(__doc__).parse_args().cli
    rows = optimised_inference_rows()
    trial = SoftwareTrial(cli, "launch_interval_us")
    predict = trial.predict

    grid = list(range(0, 31))
    errors = {i: [predict(r, i) / r["expected"] - 1 for r in rows] for i in grid}

    def report(label, idx):
        grid_report(label, idx, grid, errors, "us")

    report("all systems", list(range(len(rows))))
    for sid in sorted({r["scenario"]["system"] for r in rows}):
        report(sid, [k for k, r in enumerate(rows) if r["scenario"]["system"] == sid])
    print_loso("launch_interval_us, each source left out", loso_grid(grid, errors, [r["group"] for r in rows], 0),
               "us")


if __name__ == "__main__":
    main()
