#!/usr/bin/env python3
"""Writes tests/validation/data/kernels_h200.csv (GEMMs and grouped GEMMs) and
attention_h200.csv from the two measured runs of scripts/device/h200_kernels.py kept in
tests/validation/data/h200/run{1,2}.jsonl: one row per kernel, each run's time beside the other
(the second column empty where only one run measured it: the fp8 grouped GEMMs), and
attention_train_h200.csv from the third and fourth runs (training-shape attention, forward and backward)."""
import csv
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
