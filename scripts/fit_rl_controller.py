#!/usr/bin/env python3
"""Fits rl.controller_GBps, the rate at which a single-controller RL trainer's driver moves the
step's padded batch to and from its workers (core/rl/rl.cpp controller_passes), on verl's public
rows, and prints the leave-one-source-out table.

Model: every phase that runs (rollout, reward model, reference, old log-probs, update) gets one
pass of responses x 8 x (3 x (longest prompt + longest response) + longest response) bytes at the
rate: verl's DataProto carries input_ids, attention_mask and position_ids over the padded sequence
and the responses over the padded response, int64 each. The pool is the rows of verl's two public
sources (the fully_async recipe and one_step_off_policy; their weight-sync rows have no batch);
other stacks' rows are not fitted on (AReaL does not route the batch through one process). A
source is a row's group. Each row is predicted with rl.controller_GBps set to each grid value; the
fit is the grid value of the least mean |error| (0 on the grid is "no controller").

Usage: python3 scripts/fit_rl_controller.py [--cli path/to/optimus]   (the CLI built from this tree)
Standard library only.
"""
import json

from fitlib import rl_grid_main

GRID = [round(0.05 * k, 2) for k in range(1, 21)] + [0]


def with_rate(scenario, rate):
    s = json.loads(json.dumps(scenario))
    s["rl"]["controller_GBps"] = rate
    return s


def main():
    rl_grid_main(__doc__, GRID, with_rate, "rate (GB/s)", lambda v: "none" if v == 0 else str(v),
                 "controller rate", "GB/s", 0,
                 lambda r: r["group"].startswith("verl") and not r["metric"].endswith("weight_sync"))

if __name__ == "__main__":
    main()
