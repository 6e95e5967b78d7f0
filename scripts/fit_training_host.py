#!/usr/bin/env python3
"""Fit software.training_launch_interval_us on the public MoE training rows.

Usage: scripts/fit_training_host.py [--cli PATH] [--expert | --expert-us N]

The shipped value (320 us) comes from `--expert-us 10`: the further expert GEMMs held at the 10 us
Transformer Engine's own measurement gives (core/hardware/spec.h), with the GB200 / GB300 presets'
CUDA graphs in place (their software blocks, as the presets ship them).

A dropless MoE layer waits on the host once per layer for its per-expert token counts, so the
host's time per issued operator can bind (core/hardware/spec.h, SoftwareDefaults). The rows are
tests/validation/data/train_moe_public.jsonl (NVIDIA Megatron-Bridge performance summaries and
the DGX Cloud recipes: Megatron-Core with Transformer Engine on x86 DGX and Grace NVL72 hosts).
Every row is predicted with the interval (and the further expert GEMMs' with it) set to each grid
value in its system; the mean
|error| over the MoE rows per value is printed and the best is reported, as a whole and per
system, and each source (a Megatron-Bridge container release, the DGX Cloud recipes) predicted
with the interval fitted on the other sources alone (fitlib.loso). Dense rows are unaffected by
construction (no host sync) and are left out.

With --expert, a second grid: the interval against software.training_expert_gemm_us (the host
time of each further local expert's GEMM inside a grouped operator), mean |error| per pair.

With --expert-us N, the further expert GEMMs are held at N us (a value from elsewhere, e.g. the
launch cost of a cuBLAS call from C++) and the operator interval alone is fitted on a wider grid,
with the same per-system and left-out reports.
"""
import json

from fitlib import DATA, ScriptParser, SoftwareTrial, loso_grid, print_loso, run


def expert_grid(cli, moe_rows):
    """Mean |error| over the MoE rows for each (interval, expert GEMM interval) pair."""
    trial = SoftwareTrial(cli, None)

    def predict(r, a, b):
        return trial.predict_with(r, {"training_launch_interval_us": a, "training_expert_gemm_us": b})

    experts = [0, 10, 20, 30, 50, 70, 100, 130]
    print("interval \\ expert GEMM us: " + " ".join(f"{b:6d}" for b in experts))
    for a in [60, 80, 100, 120, 140, 160, 200, 250, 300]:
        cells = []
        for b in experts:
            es = []
            for r in moe_rows:
                p = predict(r, a, b)
                es.append(1.0 if p is None else abs(p / r["expected"] - 1))
            cells.append(f"{100 * sum(es) / len(es):5.1f}%")
        print(f"{a:8d} us: " + " ".join(cells))


def main():
    ap = ScriptParser(__doc__)
    ap.add_argument("--expert", action="store_true",
                    help="the grid of the interval against training_expert_gemm_us")
    ap.add_argument("--expert-us", metavar="N", help="hold the further expert GEMMs at N us")
    a = ap.parse_args()
    cli, expert_us = a.cli, a.expert_us
    rows = [json.loads(line) for line in open(DATA / "train_moe_public.jsonl") if line.strip()]
    moe_rows = []
    tied = SoftwareTrial(cli, None)

    def predict(r, value):  # the operator and the further expert GEMMs at the same interval, or held
        expert = float(expert_us) if expert_us is not None else value
        return tied.predict_with(r, {"training_launch_interval_us": value, "training_expert_gemm_us": expert})


    for r in rows:
        model = r["scenario"]["model"]
        if isinstance(model, str):
            model = json.loads(run(cli, ["preset", "models", model]))
        if "moe" in model:
            moe_rows.append(r)
    if a.expert:
        expert_grid(cli, moe_rows)
        return
    grid = list(range(0, 161, 10)) if expert_us is None else list(range(0, 501, 20))
    errors = {}
    for i in grid:
        errors[i] = []
        for r in moe_rows:
            p = predict(r, i)
            errors[i].append(None if p is None else p / r["expected"] - 1)

    def mean(es):
        es = [abs(e) for e in es if e is not None]
        return sum(es) / len(es)

    def report(label, idx):
        means = {i: mean([errors[i][k] for k in idx]) for i in grid}
        best = min(grid, key=lambda i: means[i])
        print(f"{label}: {len(idx)} rows, mean |err| {100 * means[0]:.1f}% at 0 us, best {best} us: "
              f"{100 * means[best]:.1f}%")

    for i in grid:
        print(f"{i:4d} us: mean |err| {100 * mean(errors[i]):.1f}%")
    report("all MoE rows", list(range(len(moe_rows))))
    for sid in sorted({r["scenario"]["system"] for r in moe_rows}):
        report(sid, [k for k, r in enumerate(moe_rows) if r["scenario"]["system"] == sid])
    held = "= training_expert_gemm_us" if expert_us is None else f"training_expert_gemm_us {expert_us}"
    print_loso(f"training_launch_interval_us ({held}), each source left out",
               loso_grid(grid, errors, [r["group"] for r in moe_rows], 0), "us")


if __name__ == "__main__":
    main()
