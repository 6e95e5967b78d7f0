#!/usr/bin/env python3
"""Split the residual of FasterTransformer's static-batch tables into a per-step and a per-request part.

Usage: scripts/diagnose_static_inference.py [--cli PATH] [--software '{"key": value}']

For each pair of rows of one table that differ in output length at batch 1 (and two GPT-20B TP1
pairs at batch 8 and 64), from tests/validation/data/infer_public.jsonl and infer_heldout.jsonl:

- the measured decode step x: the difference of the two measured latencies, less the difference
  of the engine's prompt phases (their prompts differ), over the difference in output tokens;
- the engine's decode step (inference.tpot_s) against x;
- the per-request remainder F of the shorter row: measured latency less the engine's prompt phase
  less (output_len - 1) x, what neither the prompt nor the steps explain.

--software sets system.software keys on the rows' profile (e.g. '{"launch_interval_us": 12}')
to see a change before making it. Nothing is fitted; docs/static-inference.md quotes the output.
"""
import json

from fitlib import DATA, ScriptParser, json_value, run

PAIRS = [
    ("ft_20b_tp1_b1_i80_o200", "ft_20b_tp1_b1_i128_o20"),
    ("ft_20b_tp2_b1_i80_o200", "ft_20b_tp2_b1_i128_o20"),
    ("ft_20b_tp4_b1_i80_o200", "ft_20b_tp4_b1_i128_o20"),
    ("ft_20b_tp8_b1_i80_o200", "ft_20b_tp8_b1_i128_o20"),
    ("ft_6p7b_tp1_b1_i512_o32", "ft_6p7b_tp1_b1_i128_o8"),
    ("ft_89b_tp8_b1_i512_o32", "ft_89b_tp8_b1_i128_o8"),
    ("ft_175b_ft_b1_i512_o32", "ft_175b_ft_b1_i128_o8"),
    ("ft_530b_tp16_pp1_b1_i60_o20", "ft_530b_tp16_pp1_b1_i20_o8"),
    ("ft_530b_tp32_pp1_b1_i60_o20", "ft_530b_tp32_pp1_b1_i20_o8"),
    ("ft_530b_tp8_pp3_b1_i60_o20", "ft_530b_tp8_pp3_b1_i20_o8"),
    ("ft_20b_tp1_b8_i80_o200", "ft_20b_tp1_b8_i128_o20"),
    ("ft_20b_tp1_b64_i80_o200", "ft_20b_tp1_b64_i128_o20"),
]


def main():
    ap = ScriptParser(__doc__)
    ap.add_argument("--software", metavar="JSON", type=json_value, default={},
                    help="system.software keys set on the rows' profile, a JSON object")
    a = ap.parse_args()
    cli, software = a.cli, a.software
    rows = {}
    for name in ("infer_public.jsonl", "infer_heldout.jsonl"):
        for line in open(DATA / name):
            if line.strip():
                row = json.loads(line)
                rows[row["id"].split(":")[0]] = row

    def predict(case):
        scenario = json.loads(json.dumps(rows[case]["scenario"]))
        if software:
            profile = json.loads(run(cli, ["preset", "software", scenario["software"]]))
            profile.setdefault("software", {}).update(software)
            scenario["software"] = profile
        return json.loads(run(cli, ["predict", "-", "--json"], json.dumps(scenario)))["inference"]

    print("%-30s %9s %9s %8s %10s %10s" % ("longer row of the pair", "x meas", "engine", "err", "ttft eng", "F"))
    for long_id, short_id in PAIRS:
        a, b = rows[long_id], rows[short_id]
        pa, pb = predict(long_id), predict(short_id)
        oa, ob = a["scenario"]["inference"]["output_len"], b["scenario"]["inference"]["output_len"]
        x = (a["expected"] - b["expected"] - (pa["ttft_s"] - pb["ttft_s"])) / (oa - ob)
        f = b["expected"] - pb["ttft_s"] - x * (ob - 1)
        print("%-30s %6.2f ms %6.2f ms %+7.1f%% %7.2f ms %+7.1f ms" %
              (long_id, 1e3 * x, 1e3 * pa["tpot_s"], 100 * (pa["tpot_s"] / x - 1), 1e3 * pb["ttft_s"], 1e3 * f))


if __name__ == "__main__":
    main()
