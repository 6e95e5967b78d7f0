#!/usr/bin/env python3
"""Writes tests/validation/data/kernels_h200.csv (GEMMs and grouped GEMMs) and
attention_h200.csv from the two measured runs of scripts/device/h200_kernels.py kept in
tests/validation/data/h200/run{1,2}.jsonl: one row per kernel, each run's time beside the other
(the second column empty where only one run measured it: the fp8 grouped GEMMs), and
attention_train_h200.csv from the third and fourth runs (training-shape attention, forward and backward);
train_layer_h200.csv, power_mix_h200.csv and wgrad_accum_h200.csv from runs 6, 7 and 9-12 (trained
Llama 3 8B layers and 70B tensor-parallel shards, the 8B layer's GEMMs beside memory-bound copies,
weight gradients into fp32)."""
import csv
import datetime
import json
import os

ROOT = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "validation", "data")


def load(n):
    return [json.loads(l) for l in open(os.path.join(ROOT, "h200", f"run{n}.jsonl"))]


def key(r):
    return tuple(str(r.get(f, "")) for f in ("kind", "dtype", "scaling", "backend", "shape", "groups", "m",
                                             "m_per_group", "n", "k", "batch", "seq", "context"))


def paired(kinds):
    runs = [{key(r): r for r in load(n) if r["kind"] in kinds and "error" not in r} for n in (1, 2)]
    keys = list(runs[0]) + [k for k in runs[1] if k not in runs[0]]
    return [(runs[0].get(k, runs[1].get(k)), runs[1].get(k) if k in runs[0] else None) for k in keys]


def t(r):
    return f"{r['time_s']:.4g}" if r else ""


def write(path, header, rows):
    with open(os.path.join(ROOT, path), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)


rows = []
for a, b in paired({"gemm", "grouped_gemm"}):
    grouped = a["kind"] == "grouped_gemm"
    m = a["m_per_group"] if grouped else a["m"]
    g = a["groups"] if grouped else 1
    cid = f"{a['kind']}_{a['dtype']}{'_' + a['scaling'] if a.get('scaling') else ''}_{a['shape']}_m{m}"
    rows.append([cid, a["kind"], a["dtype"], a.get("scaling", ""), a["shape"], g, m, a["n"], a["k"],
                 t(a), t(b)])
write("kernels_h200.csv", ["case_id", "kind", "dtype", "scaling", "shape", "groups", "m_per_group", "n", "k",
                           "time_run1_s", "time_run2_s"], rows)

rows = []
for a, b in paired({"attention_prefill", "attention_decode"}):
    prefill = a["kind"] == "attention_prefill"
    cid = (f"{a['kind']}_{a['backend']}_b{a['batch']}_" + (f"s{a['seq']}" if prefill else f"ctx{a['context']}"))
    rows.append([cid, a["kind"], a["backend"], a["batch"], 32, 8 if not prefill else 32, a["head_dim"],
                 a["seq"] if prefill else 1, a.get("context", a.get("seq")), t(a), t(b)])
write("attention_h200.csv", ["case_id", "kind", "backend", "batch", "q_heads", "kv_heads", "head_dim", "q_len",
                             "kv_len", "time_run1_s", "time_run2_s"], rows)

# Training shapes (runs 3 and 4, ATTENTION_TRAIN_MORE=1: a sequence sweep and GQA): causal attention
# forward and forward + backward per head dimension.
rows = []
for r in load(3) + load(4):
    if r["kind"] != "attention_train" or "error" in r:
        continue
    kv = r.get("kv_heads", r["heads"])
    rows.append([f"attention_train_{r['backend']}_h{r['heads']}_kv{kv}_d{r['head_dim']}_s{r['seq']}", r["backend"],
                 r["batch"], r["heads"], kv, r["head_dim"], r["seq"], f"{r['fwd_s']:.4g}", f"{r['fwd_bwd_s']:.4g}"])
write("attention_train_h200.csv", ["case_id", "backend", "batch", "heads", "kv_heads", "head_dim", "seq", "fwd_s",
                                   "fwd_bwd_s"], rows)


def monitored(records, window):
    """Mean SM clock (MHz) and power (W) of the MONITOR=1 samples inside a [start, end] window."""
    mon = next((r for r in records if r["kind"] == "monitor"), None)
    if not mon:
        return "", ""
    xs = []
    for stamp, mhz, watts in mon["samples"]:
        t = datetime.datetime.strptime(stamp, "%Y/%m/%d %H:%M:%S.%f").replace(
            tzinfo=datetime.timezone.utc).timestamp() - mon["time_zone_offset_s"]
        if window[0] <= t <= window[1]:
            xs.append((float(mhz), float(watts)))
    return (f"{sum(x[0] for x in xs) / len(xs):.0f}", f"{sum(x[1] for x in xs) / len(xs):.0f}") if xs else ("", "")


# Llama 3 8B layers, and one rank's shard of Llama 3 70B layers under 8-way tensor parallelism, trained
# at one micro-batch (runs 9 and 10: 8B eager and torch.compile; 11 and 12: the 70B shard; each profiled
# after 3 s of steady state; runs 5, 6 and 8 are earlier 8B tries that profiled a step before it).
rows = []
for n in (9, 10, 11, 12):
    recs = load(n)
    for r in recs:
        if r["kind"] != "train_layer":
            continue
        variant = "compiled" if r.get("compiled") else "eager"
        k = r["kernel_s_per_layer"]
        rows.append([f"train_layer_{r['model']}_{variant}_s{r['seq']}", r["model"], variant, r["batch"], r["seq"],
                     r["layers"],
                     f"{r['fwd_s']:.4g}", f"{r['fwd_bwd_s']:.4g}", f"{r['steady_fwd_bwd_s']:.4g}",
                     f"{k['gemm']:.4g}", f"{k['attention']:.4g}", f"{k['other']:.4g}", r["kernels_per_layer"],
                     *monitored(recs, r["steady_window"]), n])
write("train_layer_h200.csv", ["case_id", "model", "variant", "batch", "seq", "layers", "fwd_s", "fwd_bwd_s",
                               "steady_fwd_bwd_s", "gemm_s", "attention_s", "other_s", "kernels",
                               "steady_sm_MHz", "steady_power_W", "run"], rows)

# The layer's twelve GEMMs back to back and beside memory-bound copies (run 6), and its weight-gradient
# GEMMs with the fp32 main gradient (run 7).
recs = load(6)
write("power_mix_h200.csv", ["case_id", "operand_scale", "copy_MiB", "gemm_s", "round_s", "gemm_share",
                             "gemm_TFLOPs", "sm_MHz", "power_W"],
      [[f"power_mix_x{r['scale']}_copy{r['copy_MiB']}", r["scale"], r["copy_MiB"], f"{r['gemm_s']:.4g}",
        f"{r['round_s']:.4g}", f"{r['gemm_share']:.3f}", f"{r['gemm_TFLOPs']:.0f}", *monitored(recs, r["late_window"])]
       for r in recs if r["kind"] == "power_mix"])
write("wgrad_accum_h200.csv", ["case_id", "shape", "m", "n", "k", "way", "time_s"],
      [[f"wgrad_{r['shape']}_k{r['k']}_{r['way']}", r["shape"], r["m"], r["n"], r["k"], r["way"], f"{r['time_s']:.4g}"]
       for r in load(7) if r["kind"] == "wgrad_accum" and "error" not in r])
