#!/usr/bin/env python3
"""How the public RL rows score against the cap of the assumed mean response of a base or
instruct policy, with the leave-one-source-out table: a check on core/rl/rl.cpp kShortCotPrior's
cap, not a fit it takes.

Model (core/rl/rl.cpp limit_distribution): a whole-number rl.response_len is the longest response
a rollout may generate; the responses follow the truncated exponential below it with mean
min(limit / 4, cap) for a short_cot policy (the step's longest response cut at the limit). The
engine ships cap = 1,024 tokens, set from published means (docs/rl.md, "Lengths: limits and
means"), not from these rows. This script writes each whole-number limit of a short_cot row of
tests/validation/data/rl_public.jsonl as {"mean": min(limit / 4, cap), "max": limit} for each
cap on a grid (the {mean, max} form does not cut the longest response at the limit, so this is
the engine's prior without that cut; long_cot rows keep the engine's own reading), predicts every
row, and prints the grid and fitlib.loso's table: each source's rows predicted with the cap
fitted on the other sources alone (the reference, 1,024, for none). A source is a row's group.

Usage: python3 scripts/fit_rl_response_cap.py [--cli path/to/optimus]   (the CLI built from this tree)
Standard library only.
"""
import json
import pathlib
import re

from fitlib import rl_grid_main

PRESETS = pathlib.Path(__file__).resolve().parent.parent / 'presets' / 'models'


def run_preset(model_id):
    return (PRESETS / f'{model_id}.json').read_text()

NO_CAP = 10**9
GRID = [512, 768, 1024, 1536, 2048, 3072, 4096, 6144, NO_CAP]
SHIPPED = 1024
# core/rl/rl.cpp long_cot_model: name tokens of a long chain-of-thought model.
LONG_COT = {'r1', 'qwq', 'thinking', 'reasoner', 'reasoning', 'deepscaler', 'or1', 'openthinker'}


def long_cot(scenario):
    style = scenario['rl'].get('response_style')
    if style:
        return style == 'long_cot'
    model = scenario['model']
    name = model.get('name', '') if isinstance(model, dict) else json.loads(run_preset(model))['name']
    return any(t in LONG_COT for t in re.split(r'[^0-9a-z]+', name.lower()))


def with_cap(scenario, cap):
    s = json.loads(json.dumps(scenario))
    limit = s["rl"].get("response_len")
    if isinstance(limit, int) and limit >= 8 and not long_cot(s):  # kShortestTail: below it a limit is the length
        s["rl"]["response_len"] = {"mean": min(limit / 4, cap), "max": limit}
    return s


def main():
    rl_grid_main(__doc__, GRID, with_cap, "cap (tokens)", lambda cap: "none" if cap == NO_CAP else str(cap),
                 "response mean cap", "tokens", SHIPPED)

if __name__ == "__main__":
    main()
