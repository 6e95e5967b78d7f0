#!/usr/bin/env python3
"""Fit network_tier.all_to_all_efficiency of the system presets on measured MoE dispatch/combine.

Data: tests/validation/data/collectives_wave2.csv (DeepEP and NVIDIA HybridEP tables; each row
names its source; tests/validation/README.md). Each row gives DeepEP's "bottleneck" / "algorithm" bandwidth (meas_algbw_GBps) of one
dispatch or combine call of the normal (throughput) kernels.

Method. The engine (core/cost/collective.cpp) times an all-to-all on one tier as
    (P-1)/P * S / (link * all_to_all_efficiency) + (P-1) * bulk_latency
(S = the bytes a rank sends, its own share included), and across domains sends the share for
other domains, (P-k)/P * S, over the scale-out NIC. The efficiency is therefore the share of the
per-direction link rate reached by the bytes that actually cross the link. DeepEP's bandwidth is
bytes on the bottleneck link / time, but the bytes are logical: they include the rank's own share
(intra-node) or the local node's share (RDMA); the tests count them that way and the maintainers
confirm it (DeepEP issues #51, #141, #285; DeepEP V2 README: "90 GB/s actually contains local
rank traffic"; HybridEP tests/utils.py count_rdma_send_from_routing_map keeps the local node
"to align with the implementation in the DeepEP"). So
    efficiency = algbw * (G-1)/G / link
with G the number of peers on that tier: ranks for an NVLink-only run, nodes (NVLink domains)
for the RDMA bandwidth. That is the (P-1)/P (or (P-k)/P) share the engine's formula removes.

Rows fitted (the same rule for every family):
  * normal kernels only (low-latency kernels are a different regime and are not read);
  * end-to-end call timing (DeepEP's tests time the Python call; HybridEP "Torch API"), the cost
    a framework pays; HybridEP "kernel only" rows are printed as an upper bound;
  * per implementation and rank count, the largest SM budget in the table (where the bandwidth
    has saturated); smaller budgets are printed;
  * DeepEP V1 H800: the current table (the 2025-04-22 update supersedes EP32/EP64; EP8/EP16 are
    unchanged);
  * scale-out rows only where the NIC is the bottleneck. DeepEP/HybridEP send a token once per
    remote node and forward it over NVLink inside the node; the forwarding stage is estimated here
    (expected distinct ranks and nodes per token for the routing of the test, at the link rates)
    and a row is fitted only when that stage needs at most half the NIC time. At 2 H800 nodes it
    needs more than the NIC (the maintainers: "NVLink the bottleneck", DeepEP issue #285).
The fitted value is the median over the selected rows (dispatch in each published dtype, and
combine), so one outlier does not move it.

Out of sample: each family (one implementation's table on one fabric) is one source. Its selected
rows are also predicted with the median efficiency of the other families' selected rows, as a
fabric with no measured table of its own would be (time error = measured efficiency / that
median - 1; fitlib.print_loso).

Usage: python3 scripts/fit_all_to_all.py [collectives_wave2.csv] [--write-rows OUT.csv]
Default input: tests/validation/data/collectives_wave2.csv (the rows this script reads, with their
sources; --write-rows writes such a file from a larger table). Standard library only.
"""

import csv
import os
import random
import statistics

from fitlib import ScriptParser, existing_file, loso, print_loso

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LOCAL = os.path.join(REPO, "tests", "validation", "data", "collectives_wave2.csv")

HIDDEN = 7168
FP8_BYTES = HIDDEN * (1 + 4 / 128)  # e4m3 values + one fp32 scale per 128 (DeepEP, HybridEP tests)
BF16_BYTES = HIDDEN * 2
FORWARDING_LIMIT = 0.5  # fit a scale-out row only when the NVLink forwarding needs <= half the NIC time

# Per-direction link rates, GB/s (presets/systems/*.json).
NVLINK_H800 = 200.0  # 400 GB/s bidirectional (arXiv 2505.09343 Sec. 2; DeepEP README quotes ~160 achievable)
NVLINK_H100 = 450.0
NVLINK5 = 900.0
CX7 = 50.0  # 400 Gb/s per GPU


def load(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


# --- routing of the tests: expected distinct ranks R and nodes Nh a token is sent to -----------


def _p_hit(total, group, picks):
    """P(a given group of `group` experts gets at least one of `picks` distinct uniform picks)."""
    p_miss = 1.0
    for i in range(picks):
        p_miss *= (total - group - i) / (total - i)
    return 1.0 - p_miss


def uniform_routing(ranks, per_node, experts_per_rank, topk=8):
    """HybridEP tests: random uniform router, `experts_per_rank` local experts."""
    e = ranks * experts_per_rank
    nodes = ranks // per_node
    r = ranks * _p_hit(e, experts_per_rank, topk)
    nh = nodes * _p_hit(e, experts_per_rank * per_node, topk)
    return r, nh


_MC = {}


def group_limited_routing(ranks, per_node, topk=8, samples=4000, seed=1):
    """DeepEP V1 tests (tests/test_internode.py @ebfe47e4): 256 experts, scores |N(0,1)|+1, the
    top min(nodes, 4) nodes by their best expert, then the top-8 experts inside them."""
    key = (ranks, per_node)
    if key in _MC:
        return _MC[key]
    nodes = max(1, ranks // per_node)
    e = (256 // ranks) * ranks
    per_rank = e // ranks
    per_group = e // nodes
    groups = min(nodes, 4)
    rng = random.Random(seed)
    rs = ns = 0
    for _ in range(samples):
        scores = [abs(rng.gauss(0, 1)) + 1 for _ in range(e)]
        gmax = [max(scores[g * per_group:(g + 1) * per_group]) for g in range(nodes)]
        chosen = sorted(range(nodes), key=lambda g: -gmax[g])[:groups]
        cand = [x for g in chosen for x in range(g * per_group, (g + 1) * per_group)]
        top = sorted(cand, key=lambda x: -scores[x])[:topk]
        rs += len({x // per_rank for x in top})
        ns += len({x // per_group for x in top})
    _MC[key] = (rs / samples, ns / samples)
    return _MC[key]


def routing(row):
    p, k = int(row["num_gpus"]), int(row["gpus_per_node"])
    if row["case_id"].startswith("hybridep_") or row["case_id"].startswith("deepep_gb200_") or row[
            "case_id"].startswith("deepep_b200_"):
        return uniform_routing(p, k, 8)  # "8 local experts, random uniform router"
    return group_limited_routing(p, k)


# --- row families -------------------------------------------------------------------------------


def family(row):
    """(family, tier, link GB/s, peers G on that tier) or None for rows not read."""
    cid, coll = row["case_id"], row["collective"]
    n_nodes = int(row["num_nodes"])
    if "low-latency" in coll:
        return None
    if cid.startswith("deepep_v1") and "_h800_normal_" in cid:
        if n_nodes == 1:
            return ("H800 NVLink (DeepEP V1)", "scale_up", NVLINK_H800, int(row["num_gpus"]))
        return ("H800 RDMA CX7 (DeepEP V1)", "scale_out", CX7, n_nodes)
    if cid.startswith("hybridep_h100_"):
        return ("H100 IB (HybridEP)", "scale_out", CX7, n_nodes)
    if cid.startswith("hybridep_b200_") or cid.startswith("deepep_b200_"):
        return ("B200 NVLink5 8-GPU", "scale_up", NVLINK5, int(row["num_gpus"]))
    if cid.startswith("hybridep_gb200_") or cid.startswith("deepep_gb200_"):
        return ("GB200 NVL72 NVLink5", "scale_up", NVLINK5, int(row["num_gpus"]))
    if cid.startswith("deepep_v2_sm100_") and n_nodes > 1:
        return ("Blackwell (SM100) RDMA CX7 (DeepEP V2)", "scale_out", CX7, n_nodes)
    if cid.startswith("deepep_v2_sm100_"):
        return ("Blackwell (SM100) NVLink5 (DeepEP V2, cross-check)", "scale_up", NVLINK5, int(row["num_gpus"]))
    if cid.startswith("deepep_v2_sm90_"):
        return ("Hopper (SM90) RDMA CX7 (DeepEP V2, cross-check)", "scale_out", CX7, n_nodes)
    if cid.startswith("deepep_pcie_h20_"):
        # NVLink disabled: every peer, in the node or not, is reached through the NIC.
        return ("H20 NIC only (DeepEP PCIe mode, cross-check)", "nic_only", CX7, int(row["num_gpus"]))
    return None


def sms(row):
    """SM budget from the case id: `_sm16_` (HybridEP tables) or `_12sm_` (DeepEP V2; there `sm90` /
    `sm100` name the architecture)."""
    parts = row["case_id"].split("_")
    for part in parts:
        if part.endswith("sm") and part[:-2].isdigit():
            return int(part[:-2])
    if row["case_id"].startswith("deepep_v2"):
        return None
    for part in parts:
        if part.startswith("sm") and part[2:].isdigit():
            return int(part[2:])
    return None


def impl(row):
    cid = row["case_id"]
    if cid.startswith("hybridep_"):
        return "HybridEP"
    if cid.startswith("deepep_v2"):
        return "DeepEP V2"
    return "DeepEP"


def op(row):
    coll = row["collective"]
    if "combine" in coll:
        return "combine"
    return "dispatch FP8" if ("FP8" in coll or "_fp8" in row["case_id"] or "(DeepEP normal)" in coll
                              or "V2" in coll) else "dispatch BF16"


def superseded(row):
    cid = row["case_id"]
    return cid.startswith("deepep_v1init_h800_normal_ep32") or cid.startswith("deepep_v1init_h800_normal_ep64")


def forwarding_ratio(row, up_link):
    """NVLink forwarding time / NIC time per GPU for a multi-node row (see module docstring)."""
    p, k = int(row["num_gpus"]), int(row["gpus_per_node"])
    n = p // k
    r, nh = routing(row)
    nvl = r * (k - 1) / k / up_link
    nic = nh * (n - 1) / n / CX7
    return nvl / nic


UP_LINK = {"H800 RDMA CX7 (DeepEP V1)": NVLINK_H800, "H100 IB (HybridEP)": NVLINK_H100,
           "Blackwell (SM100) RDMA CX7 (DeepEP V2)": NVLINK5,
           # SM90 part not named (H800 would be 200): a cross-check, not fitted
           "Hopper (SM90) RDMA CX7 (DeepEP V2, cross-check)": NVLINK_H100}

# Tiers the fit sets, and the family each comes from.
TIERS = [
    ("hgx-h800", "scale_up", "H800 NVLink (DeepEP V1)"),
    ("hgx-h800", "scale_out", "H800 RDMA CX7 (DeepEP V1)"),
    ("dgx-h100", "scale_out", "H100 IB (HybridEP)"),
    ("dgx-b200", "scale_up", "B200 NVLink5 8-GPU"),
    ("gb200-nvl72", "scale_up", "GB200 NVL72 NVLink5"),
    ("dgx-b200 / gb200-nvl72", "scale_out", "Blackwell (SM100) RDMA CX7 (DeepEP V2)"),
]


def main():
    ap = ScriptParser(__doc__, cli=False)
    ap.add_argument("csv", nargs="?", metavar="collectives_wave2.csv", type=existing_file, default=LOCAL,
                    help="the measured rows (default: tests/validation/data/collectives_wave2.csv)")
    ap.add_argument("--write-rows", metavar="OUT.csv", help="write the rows this script reads to OUT.csv")
    a = ap.parse_args()
    path, out_rows = a.csv, a.write_rows
    rows = load(path)
    print(f"input: {os.path.relpath(path, REPO)} ({len(rows)} rows)")

    used = [r for r in rows if family(r)]
    if out_rows:
        with open(out_rows, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0].keys()), lineterminator="\n")
            w.writeheader()
            w.writerows(used)
        print(f"wrote the {len(used)} rows this script reads to {out_rows}")

    # Largest SM budget per (family, implementation, ranks, timing).
    def timing(r):
        return "kernel" if r["case_id"].endswith("_kernel") else "call"

    best_sm = {}
    for r in used:
        key = (family(r)[0], impl(r), r["num_gpus"], timing(r))
        s = sms(r) or 0
        best_sm[key] = max(best_sm.get(key, 0), s)

    fams = {}
    for r in used:
        fam, tier, link, g = family(r)
        eff = float(r["meas_algbw_GBps"]) * (g - 1) / g / link
        why = []
        if timing(r) == "kernel":
            why.append("kernel-only timing (upper bound)")
        if (sms(r) or 0) < best_sm[(fam, impl(r), r["num_gpus"], timing(r))]:
            why.append("smaller SM budget")
        if superseded(r):
            why.append("superseded by the 2025-04-22 table")
        fwd = None
        if tier == "scale_out":
            fwd = forwarding_ratio(r, UP_LINK[fam])
            if fwd > FORWARDING_LIMIT:
                why.append(f"NVLink forwarding {fwd:.2f} x NIC time")
        if "cross-check" in fam:
            why.append("cross-check only")
        fams.setdefault(fam, []).append((r, eff, fwd, why))

    fitted = {}
    for fam, items in fams.items():
        link = family(items[0][0])[2]
        print(f"\n== {fam}  (link {link:.0f} GB/s per direction)")
        print(f"{'case_id':46s} {'op':13s} {'P':>3s} {'SM':>3s} {'algbw':>7s} {'eff':>6s} {'fwd':>5s}  used")
        sel = []
        for r, eff, fwd, why in sorted(items, key=lambda x: (int(x[0]["num_gpus"]), x[0]["case_id"])):
            s = sms(r)
            print(f"{r['case_id']:46s} {op(r):13s} {r['num_gpus']:>3s} {str(s or ''):>3s} "
                  f"{float(r['meas_algbw_GBps']):7.1f} {eff:6.3f} {'' if fwd is None else f'{fwd:5.2f}':>5s}  "
                  f"{'yes' if not why else 'no: ' + '; '.join(why)}")
            if not why:
                sel.append((r, eff))
        if sel:
            effs = [e for _, e in sel]
            med = statistics.median(effs)
            fitted[fam] = (med, sel)
            print(f"-> fitted {med:.3f} (median of {len(sel)} rows, range {min(effs):.3f}-{max(effs):.3f}, "
                  f"mean {statistics.mean(effs):.3f})")

    # Leave one family out: its rows at the median of the other families' selected rows.
    pooled = [(fam, eff) for fam, (_, sel) in fitted.items() for _, eff in sel]

    def error(value, k):  # an all-to-all's time goes as 1 / efficiency
        own = fitted[pooled[k][0]][0] if value is None else value
        return pooled[k][1] / own - 1

    result = loso([f for f, _ in pooled],
                  lambda idx: statistics.median([pooled[k][1] for k in idx]) if len(idx) < len(pooled) else None,
                  error)
    for s in result["sources"].values():  # in sample: each family at its own median, as the presets hold
        s["in"] = [error(None, k) for k in s["rows"]]
        s["held_value"] = round(s["held_value"], 3)
    result["value"] = "per family (above)"
    print_loso("All-to-all time, each family in sample (its own median) and left out (the others' median)", result)

    print("\n== all_to_all_efficiency per system tier")
    for system, tier, fam in TIERS:
        if fam in fitted:
            med, sel = fitted[fam]
            print(f"{system:24s} {tier:9s} {med:.2f}  from {fam}: " + ", ".join(r["case_id"] for r, _ in sel))
        else:
            print(f"{system:24s} {tier:9s} --    no row of {fam} passes the rule")

    # The engine's latency term on these rows: (P-1) (or P-k) steps x bulk_latency per call.
    print("\n== latency term of the engine's pairwise formula vs the measured call time")
    print("   (time implied by the logical bytes of the test's routing / algbw; bulk_latency_us from")
    print("   the presets: NVLink 3.05 (H100 fit) or 6.82 (B200 fit), InfiniBand 8)")
    checks = [("hybridep_h100_r64_sm16_dispatch_bf16_torch", 8.0, 56),
              ("hybridep_h100_r32_sm16_dispatch_bf16_torch", 8.0, 24),
              ("deepep_v1tencent_h800_normal_ep64_dispatch", 8.0, 56),
              ("deepep_b200_r8_sm48_dispatch_bf16", 6.82, 7),
              ("hybridep_gb200_r36_sm32_dispatch_bf16_torch", 6.82, 35)]
    by_id = {r["case_id"]: r for r in rows}
    for cid, blat, steps in checks:
        r = by_id.get(cid)
        if not r:
            continue
        rr, nh = routing(r)
        per_token = FP8_BYTES if op(r) == "dispatch FP8" else BF16_BYTES
        count = nh if family(r)[1] == "scale_out" else rr
        t = 4096 * count * per_token / (float(r["meas_algbw_GBps"]) * 1e9)
        lat = steps * blat * 1e-6
        print(f"{cid:46s} measured ~{t * 1e6:7.0f} us; {steps} steps x {blat} us = {lat * 1e6:5.0f} us "
              f"({lat / t * 100:4.1f}% of it)")


if __name__ == "__main__":
    main()
