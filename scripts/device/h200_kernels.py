#!/usr/bin/env python3
"""Measures the kernels the engine models, on one GPU, with PyTorch: HBM and L2 bandwidth, the
per-kernel floor and the eager launch interval, bf16 and fp8 GEMMs at layer shapes, grouped
(MoE expert) GEMMs, attention prefill and decode, element-wise kernels, and whole decode and
prefill steps of a Llama-shaped model with random weights (eager and CUDA-graph replay).

Run on a machine with a GPU: `python3 scripts/device/h200_kernels.py OUTDIR`; SECTIONS=a,b runs
those sections only, BUDGET_S caps the run (330 s), ATTENTION_TRAIN_MORE=1 gives attention_train the
fourth run's shapes (a sequence sweep and grouped KV heads); SECTIONS=train_layer alone (about 25 s)
times Llama 3 8B layers trained at one micro-batch (TRAIN_COMPILE=1: through torch.compile,
about 45 s; TRAIN_SHAPE=70b-tp8: one rank's shard of Llama 3 70B layers under 8-way tensor
parallelism), power_mix the layer's GEMMs back to back and beside memory-bound copies, wgrad_accum its
weight-gradient GEMMs into an fp32 gradient; MONITOR=1 samples the SM clock and power every 50 ms
into a last record. Writes
OUTDIR/kernels.jsonl (one JSON object per measurement) and OUTDIR/env.json (versions, clocks).
Every section is independent: one that fails is recorded with its error and the rest run.

Timing: kernels are captured `reps` times into one CUDA graph and the graph replayed; the time
per kernel is the median replay time over `reps` (CUDA events), so host launch cost is excluded
and back-to-back gaps (about 1 us) are included, as in a CUDA-graph inference step. Weights are
rotated across enough copies to exceed the L2 several times, so a small-M GEMM reads its weights
from HBM as a real layer does. The eager launch interval is host wall time per launch of a tiny
kernel in a Python loop.
"""
import functools
import json
import math
import os
import re
import subprocess
import sys
import time
import traceback

import torch
import torch.nn.functional as F

OUT = sys.argv[1] if len(sys.argv) > 1 else "."
os.makedirs(OUT, exist_ok=True)
RES = open(os.path.join(OUT, "kernels.jsonl"), "w")
DEV = torch.device("cuda")
T0 = time.time()
BUDGET_S = float(os.environ.get("BUDGET_S", "330"))


def emit(**rec):
    RES.write(json.dumps(rec) + "\n")
    RES.flush()


def over_budget():
    return time.time() - T0 > BUDGET_S


def graph_time(step, reps, replays=5):
    """Median per-call time (s) of `step(i)` captured reps times in one CUDA graph."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for i in range(3):
            step(i)
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for i in range(reps):
            step(i)
    g.replay()
    torch.cuda.synchronize()
    times = []
    for _ in range(replays):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        g.replay()
        b.record()
        torch.cuda.synchronize()
        times.append(a.elapsed_time(b) / 1e3 / reps)
    del g
    times.sort()
    return times[len(times) // 2]


def eager_time(step, reps, rounds=5):
    """Median per-call time (s) of step(i) launched reps times from Python (events)."""
    for i in range(3):
        step(i)
    torch.cuda.synchronize()
    times = []
    for _ in range(rounds):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        for i in range(reps):
            step(i)
        b.record()
        torch.cuda.synchronize()
        times.append(a.elapsed_time(b) / 1e3 / reps)
    times.sort()
    return times[len(times) // 2]


def timed(step, reps):
    try:
        return graph_time(step, reps), "graph"
    except Exception as e:  # some kernels refuse capture: fall back to eager
        torch.cuda.synchronize()
        return eager_time(step, reps), "eager:" + type(e).__name__


def copies_for(nbytes, target=256 << 20, cap=24):
    return max(1, min(cap, math.ceil(target / max(nbytes, 1))))


def section(name):
    def wrap(fn):
        @functools.wraps(fn)
        def run():
            if over_budget():
                emit(kind="skipped", section=name, reason="time budget")
                return
            t = time.time()
            try:
                fn()
                emit(kind="section", section=name, seconds=round(time.time() - t, 2))
            except Exception as e:
                # file names without their folders: the record names no path of the machine
                trace = re.sub(r'File "[^"]*/', 'File "', traceback.format_exc())
                emit(kind="error", section=name, error=repr(e), trace=trace[-2000:])
            torch.cuda.empty_cache()

        return run

    return wrap


def smi(query):
    try:
        return subprocess.run(["nvidia-smi", "--query-gpu=" + query, "--format=csv,noheader"],
                              capture_output=True, text=True, timeout=20).stdout.strip()
    except Exception as e:
        return repr(e)


def smi_sampler(query, every_ms):
    """nvidia-smi sampling `query` every `every_ms` ms until terminated; read its lines with
    smi_samples()."""
    return subprocess.Popen(["nvidia-smi", f"--query-gpu={query}", "--format=csv,noheader,nounits", "-lms",
                             str(every_ms)], stdout=subprocess.PIPE, text=True)


def smi_samples(sampler):
    """The rows a smi_sampler wrote, each split into its fields."""
    sampler.terminate()
    return [[x.strip() for x in l.split(",")] for l in sampler.communicate(timeout=10)[0].strip().splitlines()]


def env():
    p = torch.cuda.get_device_properties(0)
    e = {
        "torch": torch.__version__, "cuda": torch.version.cuda,
        "cudnn": torch.backends.cudnn.version(), "gpu": p.name, "sm_count": p.multi_processor_count,
        "memory_bytes": p.total_memory, "l2_bytes": getattr(p, "L2_cache_size", None),
        "capability": f"{p.major}.{p.minor}",
        "smi": smi("name,driver_version,power.limit,clocks.max.sm,clocks.max.mem,clocks.sm,temperature.gpu"),
        "python": sys.version.split()[0],
    }
    try:
        import triton
        e["triton"] = triton.__version__
    except Exception:
        pass
    return e


# ---------------------------------------------------------------------------------------------
@section("bandwidth")
def bandwidth():
    n = 1 << 30  # 1 GiB each way: well beyond the L2
    a = torch.empty(n // 2, dtype=torch.bfloat16, device=DEV).normal_()
    b = torch.empty_like(a)
    t, how = timed(lambda i: b.copy_(a), 10)
    emit(kind="hbm_copy", bytes=2 * a.numel() * 2, time_s=t, GBps=2 * a.numel() * 2 / t / 1e9, timing=how)
    t, how = timed(lambda i: torch.sum(a, dtype=torch.float32), 10)
    emit(kind="hbm_read", bytes=a.numel() * 2, time_s=t, GBps=a.numel() * 2 / t / 1e9, timing=how)
    for mib in (64, 256, 4096):
        s = torch.empty(mib << 19, dtype=torch.bfloat16, device=DEV).normal_()
        d = torch.empty_like(s)
        t, how = timed(lambda i: d.copy_(s), 20)
        emit(kind="hbm_copy", bytes=2 * s.numel() * 2, time_s=t, GBps=2 * s.numel() * 2 / t / 1e9, timing=how)
        del s, d
    # L2: a 4, 8 or 16 MiB source copied to a destination of its size, both resident in the L2.
    for mib in (4, 8, 16):
        s = torch.empty(mib << 19, dtype=torch.bfloat16, device=DEV).normal_()
        d = torch.empty_like(s)
        t, how = timed(lambda i: d.copy_(s), 200)
        emit(kind="l2_copy", bytes=2 * s.numel() * 2, time_s=t, GBps=2 * s.numel() * 2 / t / 1e9, timing=how,
             footprint_MiB=2 * mib)
    del a, b


@section("launch")
def launch():
    x = torch.zeros(256, device=DEV)
    t, how = timed(lambda i: x.add_(1.0), 1000)
    emit(kind="kernel_floor", time_s=t, timing=how, op="add_ 256 floats")
    for _ in range(3):
        torch.cuda.synchronize()
        w = time.perf_counter()
        for _ in range(2000):
            x.add_(1.0)
        host = (time.perf_counter() - w) / 2000
        torch.cuda.synchronize()
        emit(kind="eager_launch", time_s=host, op="add_ 256 floats, host time per launch")
    a = torch.randn(1, 4096, device=DEV, dtype=torch.bfloat16)
    wt = torch.randn(4096, 4096, device=DEV, dtype=torch.bfloat16)
    for _ in range(20):  # cuBLAS handle and heuristics warm-up
        F.linear(a, wt)
    torch.cuda.synchronize()
    w = time.perf_counter()
    for _ in range(2000):
        F.linear(a, wt)
    host = (time.perf_counter() - w) / 2000
    torch.cuda.synchronize()
    emit(kind="eager_launch", time_s=host, op="F.linear 1x4096x4096, host time per call")


# Layer shapes (N, K) of nn.Linear weights [N, K]: Llama 3 8B (TP 1) and Llama 3 70B at TP 8.
GEMM_SHAPES = {
    "llama3-8b.qkv": (6144, 4096), "llama3-8b.o": (4096, 4096),
    "llama3-8b.gate_up": (28672, 4096), "llama3-8b.down": (4096, 14336),
    "llama3-70b-tp8.qkv": (1280, 8192), "llama3-70b-tp8.o": (8192, 1024),
    "llama3-70b-tp8.gate_up": (7168, 8192), "llama3-70b-tp8.down": (8192, 3584),
    "square-8192": (8192, 8192), "lm_head-128256": (128256, 4096),
}
GEMM_M = (1, 16, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384)


def gemm_reps(flops, nbytes):
    est = max(flops / 700e12, nbytes / 4.0e12, 5e-6)
    return int(min(200, max(10, 0.02 / est)))


@section("gemm_bf16")
def gemm_bf16():
    for name, (n, k) in GEMM_SHAPES.items():
        wbytes = n * k * 2
        ws = [torch.randn(n, k, device=DEV, dtype=torch.bfloat16) for _ in range(copies_for(wbytes))]
        for m in GEMM_M:
            if name.startswith("lm_head") and m > 4096:
                continue
            x = torch.randn(m, k, device=DEV, dtype=torch.bfloat16)
            flops = 2 * m * n * k
            t, how = timed(lambda i: F.linear(x, ws[i % len(ws)]), gemm_reps(flops, wbytes))
            emit(kind="gemm", dtype="bf16", shape=name, m=m, n=n, k=k, time_s=t, TFLOPs=flops / t / 1e12,
                 timing=how, weight_copies=len(ws))
            del x
            if over_budget():
                return
        del ws


@section("gemm_fp8")
def gemm_fp8():
    f8 = torch.float8_e4m3fn
    one = torch.ones((), device=DEV, dtype=torch.float32)
    for name, (n, k) in GEMM_SHAPES.items():
        if name.startswith("lm_head"):
            continue
        ws = [torch.randn(n, k, device=DEV).to(f8) for _ in range(copies_for(n * k))]
        for m in GEMM_M:
            if m < 16:
                continue
            x = torch.randn(m, k, device=DEV).to(f8)
            flops = 2 * m * n * k
            for scaling in ("tensor", "row"):
                if scaling == "tensor":
                    sa, sb, fast = one, one, True
                else:
                    sa = torch.ones(m, 1, device=DEV, dtype=torch.float32)
                    sb = torch.ones(1, n, device=DEV, dtype=torch.float32)
                    fast = True
                try:
                    t, how = timed(lambda i: torch._scaled_mm(x, ws[i % len(ws)].t(), scale_a=sa, scale_b=sb,
                                                              out_dtype=torch.bfloat16, use_fast_accum=fast),
                                   gemm_reps(flops, n * k))
                except Exception as e:
                    emit(kind="gemm", dtype="fp8_e4m3", scaling=scaling, shape=name, m=m, error=repr(e)[:300])
                    continue
                emit(kind="gemm", dtype="fp8_e4m3", scaling=scaling, fast_accum=fast, shape=name, m=m, n=n, k=k,
                     time_s=t, TFLOPs=flops / t / 1e12, timing=how, weight_copies=len(ws))
            if over_budget():
                return
        del ws


# MoE experts (per expert: gate_up [2*inter, hidden], down [hidden, inter]); G experts on the GPU.
GROUPED = {
    "deepseek-v3.ep8.gate_up": (32, 4096, 7168), "deepseek-v3.ep8.down": (32, 7168, 2048),
    "qwen3-30b-a3b.ep1.gate_up": (128, 1536, 2048), "qwen3-30b-a3b.ep1.down": (128, 2048, 768),
    "gpt-oss-120b.ep8.gate_up": (16, 5760, 2880), "gpt-oss-120b.ep8.down": (16, 2880, 2880),
}


@section("grouped_gemm_bf16")
def grouped_gemm():
    for name, (g, n, k) in GROUPED.items():
        wbytes = g * n * k * 2
        ws = [torch.randn(g, n, k, device=DEV, dtype=torch.bfloat16) for _ in range(copies_for(wbytes, cap=4))]
        for per in (16, 64, 256, 1024):
            tot = g * per
            x = torch.randn(tot, k, device=DEV, dtype=torch.bfloat16)
            offs = torch.arange(per, tot + 1, per, device=DEV, dtype=torch.int32)
            flops = 2 * tot * n * k
            try:
                t, how = timed(lambda i: torch._grouped_mm(x, ws[i % len(ws)].transpose(-2, -1), offs=offs),
                               gemm_reps(flops, wbytes))
            except Exception as e:
                emit(kind="grouped_gemm", shape=name, m_per_group=per, error=repr(e)[:300])
                break
            emit(kind="grouped_gemm", dtype="bf16", shape=name, groups=g, m_per_group=per, n=n, k=k, time_s=t,
                 TFLOPs=flops / t / 1e12, timing=how, weight_copies=len(ws))
            # the same work as one loop of per-expert GEMMs (an eager MoE without a grouped kernel)
            if per in (16, 256):
                xs = x.view(g, per, k)
                t2, how2 = timed(lambda i: [F.linear(xs[j], ws[i % len(ws)][j]) for j in range(g)], 3)
                emit(kind="expert_loop", dtype="bf16", shape=name, groups=g, m_per_group=per, n=n, k=k,
                     time_s=t2, TFLOPs=flops / t2 / 1e12, timing=how2)
            del x
        del ws


@section("attention")
def attention():
    from torch.nn.attention import SDPBackend, sdpa_kernel
    backends = {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION,
                "efficient": SDPBackend.EFFICIENT_ATTENTION}
    d = 128
    # prefill, causal; 32 query heads (GQA: 8 KV heads, expanded as the kernels read them)
    for s in (1024, 4096, 16384):
        b = max(1, 16384 // s)
        q = torch.randn(b, 32, s, d, device=DEV, dtype=torch.bfloat16)
        kk = torch.randn(b, 32, s, d, device=DEV, dtype=torch.bfloat16)
        v = torch.randn(b, 32, s, d, device=DEV, dtype=torch.bfloat16)
        flops = 4 * b * 32 * s * s * d / 2  # causal: half of QK^T and PV
        for bn, be in backends.items():
            try:
                with sdpa_kernel([be]):
                    t, how = timed(lambda i: F.scaled_dot_product_attention(q, kk, v, is_causal=True), 10)
                emit(kind="attention_prefill", backend=bn, batch=b, heads=32, seq=s, head_dim=d, causal=True,
                     time_s=t, TFLOPs=flops / t / 1e12, timing=how)
            except Exception as e:
                emit(kind="attention_prefill", backend=bn, batch=b, seq=s, error=repr(e)[:300])
        del q, kk, v
    # decode: one new token per sequence, GQA 32/8 written as 8 KV heads x 4 query rows
    for ctx in (1024, 4096, 16384):
        for b in (1, 16, 64):
            if b * ctx > 64 * 16384:
                continue
            q = torch.randn(b, 8, 4, d, device=DEV, dtype=torch.bfloat16)
            kk = torch.randn(b, 8, ctx, d, device=DEV, dtype=torch.bfloat16)
            v = torch.randn(b, 8, ctx, d, device=DEV, dtype=torch.bfloat16)
            kv_bytes = 2 * b * 8 * ctx * d * 2
            for bn, be in backends.items():
                try:
                    with sdpa_kernel([be]):
                        t, how = timed(lambda i: F.scaled_dot_product_attention(q, kk, v), 20)
                    emit(kind="attention_decode", backend=bn, batch=b, kv_heads=8, q_per_kv=4, context=ctx,
                         head_dim=d, time_s=t, kv_bytes=kv_bytes, GBps=kv_bytes / t / 1e9, timing=how)
                except Exception as e:
                    emit(kind="attention_decode", backend=bn, batch=b, context=ctx, error=repr(e)[:300])
            del q, kk, v


@section("elementwise")
def elementwise():
    for rows in (16, 1024, 16384):
        x = torch.randn(rows, 4096, device=DEV, dtype=torch.bfloat16)
        w = torch.randn(4096, device=DEV, dtype=torch.bfloat16)
        t, how = timed(lambda i: F.rms_norm(x, (4096,), w, 1e-5), 50)
        emit(kind="rms_norm", rows=rows, hidden=4096, bytes=2 * x.numel() * 2, time_s=t,
             GBps=2 * x.numel() * 2 / t / 1e9, timing=how)
        gu = torch.randn(rows, 28672, device=DEV, dtype=torch.bfloat16)
        t, how = timed(lambda i: F.silu(gu[:, :14336]) * gu[:, 14336:], 50)
        emit(kind="silu_mul", rows=rows, inter=14336, bytes=3 * rows * 14336 * 2, time_s=t,
             GBps=3 * rows * 14336 * 2 / t / 1e9, timing=how, note="two kernels: silu, then mul")
        del x, gu


# ---------------------------------------------------------------------------------------------
# A Llama-shaped decoder with random weights: RMSNorm, fused QKV, rotary (as element-wise ops),
# KV-cache write, attention over the cache, output projection, fused gate/up, SiLU*mul, down.
MODELS = {
    "llama3-8b": dict(layers=32, hidden=4096, heads=32, kv=8, inter=14336, vocab=128256),
    "llama3.2-1b": dict(layers=16, hidden=2048, heads=32, kv=8, inter=8192, vocab=128256),
}
LLAMA3_70B = dict(layers=80, hidden=8192, heads=64, kv=8, inter=28672, vocab=128256)  # too large for one GPU whole


def tp_shard(cfg, tp):
    """One rank's share of a layer under tp-way tensor parallelism (Megatron's column and row
    splits): its query and KV heads and FFN columns over tp, the hidden size and head size whole."""
    return dict(cfg, heads=cfg["heads"] // tp, kv=max(1, cfg["kv"] // tp), inter=cfg["inter"] // tp,
                head_dim=cfg["hidden"] // cfg["heads"])


class Llama:
    def __init__(self, cfg):
        self.c = cfg
        h, d = cfg["hidden"], cfg.get("head_dim", cfg["hidden"] // cfg["heads"])
        self.d = d
        mk = lambda *s: torch.randn(*s, device=DEV, dtype=torch.bfloat16) * 0.02
        self.layers = []
        for _ in range(cfg["layers"]):
            self.layers.append(dict(
                n1=torch.ones(h, device=DEV, dtype=torch.bfloat16), n2=torch.ones(h, device=DEV, dtype=torch.bfloat16),
                qkv=mk((cfg["heads"] + 2 * cfg["kv"]) * d, h), o=mk(h, cfg["heads"] * d),
                gu=mk(2 * cfg["inter"], h), down=mk(h, cfg["inter"])))
        self.norm = torch.ones(h, device=DEV, dtype=torch.bfloat16)
        self.emb = mk(cfg["vocab"], h)
        self.cache = None
        self.gqa_ok = None

    def alloc_cache(self, b, ctx):
        c = self.c
        self.cache = [(torch.zeros(b, c["kv"], ctx, self.d, device=DEV, dtype=torch.bfloat16),
                       torch.zeros(b, c["kv"], ctx, self.d, device=DEV, dtype=torch.bfloat16))
                      for _ in range(c["layers"])]

    def rope(self, x, cos, sin):
        x1, x2 = x[..., : self.d // 2], x[..., self.d // 2:]
        return torch.cat((x1 * cos - x2 * sin, x2 * cos + x1 * sin), dim=-1)

    def decode(self, tok, pos, cos, sin):
        """One decode step for b sequences, each with `pos` tokens cached before this one."""
        c, d = self.c, self.d
        b = tok.shape[0]
        x = F.embedding(tok, self.emb)  # [b, h]
        g = c["heads"] // c["kv"]
        for li, L in enumerate(self.layers):
            hn = F.rms_norm(x, (c["hidden"],), L["n1"], 1e-5)
            qkv = F.linear(hn, L["qkv"])
            q = qkv[:, : c["heads"] * d].view(b, c["kv"], g, d)
            k = qkv[:, c["heads"] * d: (c["heads"] + c["kv"]) * d].view(b, c["kv"], 1, d)
            v = qkv[:, (c["heads"] + c["kv"]) * d:].view(b, c["kv"], 1, d)
            q, k = self.rope(q, cos, sin), self.rope(k, cos, sin)
            kc, vc = self.cache[li]
            kc[:, :, pos: pos + 1].copy_(k)
            vc[:, :, pos: pos + 1].copy_(v)
            a = F.scaled_dot_product_attention(q, kc[:, :, : pos + 1], vc[:, :, : pos + 1])
            x = x + F.linear(a.reshape(b, c["heads"] * d), L["o"])
            hn = F.rms_norm(x, (c["hidden"],), L["n2"], 1e-5)
            gu = F.linear(hn, L["gu"])
            x = x + F.linear(F.silu(gu[:, : c["inter"]]) * gu[:, c["inter"]:], L["down"])
        x = F.rms_norm(x, (c["hidden"],), self.norm, 1e-5)
        return F.linear(x, self.emb)

    def attend(self, q, k, v):
        from torch.nn.attention import SDPBackend, sdpa_kernel
        with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
            if self.gqa_ok is not False:
                try:
                    a = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
                    self.gqa_ok = True
                    return a
                except Exception:
                    self.gqa_ok = False
            g = q.shape[1] // k.shape[1]
            return F.scaled_dot_product_attention(q, k.repeat_interleave(g, 1), v.repeat_interleave(g, 1),
                                                  is_causal=True)

    def prefill(self, tok, cos, sin):
        """Forward of b x s prompt tokens, causal, without writing a cache (as TTFT's compute)."""
        x = self.blocks(F.embedding(tok, self.emb), cos, sin, self.attend)  # [b, s, h]
        x = F.rms_norm(x[:, -1], (self.c["hidden"],), self.norm, 1e-5)
        return F.linear(x, self.emb)

    def blocks(self, x, cos, sin, attend):
        """Every layer over b x s tokens of hidden states x, causal, `attend(q, k, v)` the attention."""
        c, d = self.c, self.d
        b, s = x.shape[0], x.shape[1]
        for L in self.layers:
            hn = F.rms_norm(x, (c["hidden"],), L["n1"], 1e-5)
            qkv = F.linear(hn, L["qkv"])
            q = qkv[..., : c["heads"] * d].view(b, s, c["heads"], d).transpose(1, 2)
            k = qkv[..., c["heads"] * d: (c["heads"] + c["kv"]) * d].view(b, s, c["kv"], d).transpose(1, 2)
            v = qkv[..., (c["heads"] + c["kv"]) * d:].view(b, s, c["kv"], d).transpose(1, 2)
            q, k = self.rope(q, cos, sin), self.rope(k, cos, sin)
            a = attend(q, k, v)
            x = x + F.linear(a.transpose(1, 2).reshape(b, s, c["heads"] * d), L["o"])
            hn = F.rms_norm(x, (c["hidden"],), L["n2"], 1e-5)
            gu = F.linear(hn, L["gu"])
            x = x + F.linear(F.silu(gu[..., : c["inter"]]) * gu[..., c["inter"]:], L["down"])
        return x


def step_times(fn, graph_reps=3):
    eager = eager_time(lambda i: fn(), 3, rounds=3)
    try:
        g = graph_time(lambda i: fn(), graph_reps, replays=3)
    except Exception as e:
        g = None
        emit(kind="note", note="graph capture failed: " + repr(e)[:300])
    return eager, g


@section("decode_step")
def decode_step():
    for mname, cfg in MODELS.items():
        model = Llama(cfg)
        d = cfg["hidden"] // cfg["heads"]
        for ctx in (1024, 4096):
            for b in (1, 8, 32, 64, 128):
                if over_budget():
                    return
                model.alloc_cache(b, ctx)
                tok = torch.randint(0, cfg["vocab"], (b,), device=DEV)
                cos = torch.randn(b, 1, 1, d // 2, device=DEV, dtype=torch.bfloat16)
                sin = torch.randn(b, 1, 1, d // 2, device=DEV, dtype=torch.bfloat16)
                eager, g = step_times(lambda: model.decode(tok, ctx - 1, cos, sin))
                emit(kind="decode_step", model=mname, batch=b, context=ctx, eager_s=eager, graph_s=g,
                     weights_bytes=sum(t.numel() * 2 for L in model.layers for t in L.values()) + model.emb.numel() * 2,
                     kv_bytes_read=2 * cfg["layers"] * b * cfg["kv"] * ctx * d * 2)
                model.cache = None
                torch.cuda.empty_cache()
        for s in (512, 2048, 8192):
            tok = torch.randint(0, cfg["vocab"], (1, s), device=DEV)
            cos = torch.randn(1, 1, s, d // 2, device=DEV, dtype=torch.bfloat16)
            sin = torch.randn(1, 1, s, d // 2, device=DEV, dtype=torch.bfloat16)
            eager = eager_time(lambda i: model.prefill(tok, cos, sin), 2, rounds=3)
            emit(kind="prefill_step", model=mname, batch=1, seq=s, eager_s=eager,
                 attention="flash, enable_gqa" if model.gqa_ok else "flash, K/V heads repeated")
        del model
        torch.cuda.empty_cache()


@section("attention_train")
def attention_train():
    """Causal attention forward and forward + backward at training shapes, per head dimension."""
    from torch.nn.attention import SDPBackend, sdpa_kernel
    backends = {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION}
    # (heads, KV heads, head_dim, tokens): gpt-oss (64 x 64), Llama (32 x 128 and 64 x 128), DeepSeek-V3's
    # MLA query/key width (128 x 192, values padded to 192 here)
    shapes = [(heads, heads, d, s) for heads, d in ((64, 64), (32, 128), (64, 128), (128, 192)) for s in (4096, 8192)]
    if os.environ.get("ATTENTION_TRAIN_MORE"):  # the third run's additions: sequence sweep, GQA
        shapes = [(32, 32, 128, s) for s in (2048, 16384)] + [(64, 64, 64, s) for s in (2048, 16384)] + \
                 [(64, 8, 64, s) for s in (4096, 8192)] + [(64, 8, 128, s) for s in (4096, 8192)]
    for heads, kvh, d, s in shapes:
        b = 1
        q = torch.randn(b, heads, s, d, device=DEV, dtype=torch.bfloat16, requires_grad=True)
        kk = torch.randn(b, kvh, s, d, device=DEV, dtype=torch.bfloat16, requires_grad=True)
        v = torch.randn(b, kvh, s, d, device=DEV, dtype=torch.bfloat16, requires_grad=True)
        gqa = kvh != heads
        go = torch.randn(b, heads, s, d, device=DEV, dtype=torch.bfloat16)
        flops = 4 * b * heads * s * s * d / 2
        for bn, be in backends.items():
            try:
                with sdpa_kernel([be]):
                    def fwd(i):
                        with torch.no_grad():
                            F.scaled_dot_product_attention(q, kk, v, is_causal=True, enable_gqa=gqa)

                    def fwd_bwd(i):
                        o = F.scaled_dot_product_attention(q, kk, v, is_causal=True, enable_gqa=gqa)
                        torch.autograd.grad(o, (q, kk, v), go)

                    tf = eager_time(fwd, 5, rounds=3)
                    tfb = eager_time(fwd_bwd, 5, rounds=3)
                emit(kind="attention_train", backend=bn, batch=b, heads=heads, kv_heads=kvh, head_dim=d, seq=s,
                     causal=True,
                     fwd_s=tf, fwd_bwd_s=tfb, fwd_TFLOPs=flops / tf / 1e12,
                     bwd_TFLOPs=2.5 * flops / (tfb - tf) / 1e12 if tfb > tf else None)
            except Exception as e:
                emit(kind="attention_train", backend=bn, heads=heads, head_dim=d, seq=s, error=repr(e)[:300])
        del q, kk, v, go
        torch.cuda.empty_cache()


@section("train_layer")
def train_layer():
    """Llama 3 8B decoder layers (TRAIN_SHAPE=70b-tp8: a Llama 3 70B rank's tensor-parallel shard)
    trained at one micro-batch (1 x s tokens, bf16, cuDNN attention), eager, or through
    torch.compile with TRAIN_COMPILE=1: the forward and the forward + backward per layer, the
    same step repeated for about 3 s (the throttled steady state, with the SM clock and power),
    and then the profiler's kernel time by kind (GEMM, attention, the rest) at that clock, so the
    engine's per-layer training time can be compared kernel kind by kernel kind. The layers are
    Llama.blocks, the prefill's, with trainable weights."""
    from torch.nn.attention import SDPBackend, sdpa_kernel
    from torch.profiler import ProfilerActivity, profile
    n_layers = 4
    # TRAIN_SHAPE=70b-tp8: one rank's shard of a Llama 3 70B layer under 8-way tensor parallelism
    # (8 of 64 query heads, 1 of 8 KV heads, 3584 of 28672 FFN columns; no collective is run)
    shape = os.environ.get("TRAIN_SHAPE", "8b")
    cfg = dict(MODELS["llama3-8b"] if shape == "8b" else tp_shard(LLAMA3_70B, 8), layers=n_layers)
    h, heads, kvh, inter = cfg["hidden"], cfg["heads"], cfg["kv"], cfg["inter"]
    d = cfg.get("head_dim", h // heads)

    def attend(q, k, v):
        # cuDNN first, FlashAttention 2 where cuDNN refuses; the profile names which ran
        with sdpa_kernel([SDPBackend.CUDNN_ATTENTION, SDPBackend.FLASH_ATTENTION]):
            try:
                return F.scaled_dot_product_attention(q, k, v.contiguous(), is_causal=True, enable_gqa=True)
            except RuntimeError:  # neither backend takes grouped K/V heads in this PyTorch: repeat them
                g = q.shape[1] // k.shape[1]
                return F.scaled_dot_product_attention(q, k.repeat_interleave(g, 1), v.repeat_interleave(g, 1),
                                                      is_causal=True)

    compiled = bool(os.environ.get("TRAIN_COMPILE"))  # torch.compile fuses the element-wise chains
    for s in (4096, 8192) if compiled else (2048, 4096, 8192):
        model = Llama(cfg)
        params = [t.requires_grad_() for L in model.layers for t in L.values()]
        x0 = torch.randn(1, s, h, device=DEV, dtype=torch.bfloat16, requires_grad=True)
        go = torch.randn(1, s, h, device=DEV, dtype=torch.bfloat16)
        cos = torch.randn(1, 1, s, d // 2, device=DEV, dtype=torch.bfloat16)
        sin = torch.randn(1, 1, s, d // 2, device=DEV, dtype=torch.bfloat16)

        blocks = functools.partial(model.blocks, cos=cos, sin=sin, attend=attend)
        if compiled:
            blocks = torch.compile(blocks, dynamic=False)

        def fwd(i):
            with torch.no_grad():
                blocks(x0)

        def fwd_bwd(i):
            torch.autograd.grad(blocks(x0), [x0] + params, go)

        tf = eager_time(fwd, 3, rounds=3)
        tfb = eager_time(fwd_bwd, 3, rounds=3)
        # The same step back to back for about 3 s: the throttled steady state, with clock and power;
        # the profile follows it, so its kernels run at the steady clock too.
        reps = max(3, int(3.0 / max(tfb, 1e-3)))
        torch.cuda.synchronize()
        w, wall0 = time.perf_counter(), time.time()
        for i in range(reps):
            fwd_bwd(i)
        clocks = smi("clocks.sm,power.draw")
        torch.cuda.synchronize()
        steady = (time.perf_counter() - w) / reps
        steady_window = [wall0, time.time()]
        for i in range(max(2, int(0.3 / max(tfb, 1e-3)))):  # queued: the GPU stays busy (and throttled)
            fwd_bwd(i)                                      # while the profiler starts
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            fwd_bwd(0)
            torch.cuda.synchronize()
        by_kind = {"gemm": 0.0, "attention": 0.0, "other": 0.0}
        kernels, attention_kernels, by_name = 0, set(), {}
        for e in prof.events():
            if not str(e.device_type).endswith("CUDA"):
                continue
            name = e.name.lower()
            kind = ("attention" if any(t in name for t in ("fmha", "flash", "attn", "sdpa", "cudnn"))
                    else "gemm" if any(t in name for t in ("gemm", "xmma", "nvjet", "cutlass", "cublas", "sm90"))
                    else "other")
            by_kind[kind] += e.time_range.elapsed_us() / 1e6
            kernels += 1
            if kind == "attention":
                attention_kernels.add(e.name[:80])
            key = (kind, e.name[:90])
            by_name[key] = by_name.get(key, 0.0) + e.time_range.elapsed_us() / 1e6
        top = sorted(by_name.items(), key=lambda kv: -kv[1])[:24]
        flops_fwd = n_layers * (2 * s * h * ((heads + 2 * kvh) * d + heads * d + 3 * inter) + 2 * s * s * heads * d)
        emit(kind="train_layer", model="llama3-8b" if shape == "8b" else "llama3-70b-tp8", layers=n_layers,
             batch=1, seq=s, compiled=compiled,
             attention_kernels=sorted(attention_kernels)[:4],
             fwd_s=tf / n_layers, fwd_bwd_s=tfb / n_layers, steady_fwd_bwd_s=steady / n_layers,
             kernels_per_layer=kernels / n_layers,
             kernel_s_per_layer={k: v / n_layers for k, v in by_kind.items()},
             top_kernels_s_per_layer=[[k[0], k[1], v / n_layers] for k, v in top],
             model_TFLOPs=3 * flops_fwd / steady / 1e12, smi_during=clocks, steady_window=steady_window)
        del model, x0, go, params
        torch.cuda.empty_cache()


@section("power_mix")
def power_mix():
    """The GEMMs of one Llama 3 8B layer trained at 1 x 4096 tokens (forward, input gradient and
    weight gradient of QKV, output, gate/up and down), run for about 3 s each way: back to back,
    and with a memory-bound copy after each GEMM (128 or 512 MiB, so that copies take about 10% or
    35% of the time, as the element-wise kernels of a training step do); operands at unit scale and
    at 0.02 (initialised weights). Each GEMM is timed with CUDA events over the last half of the
    run, so the rate is the GEMMs' own in each mix; with MONITOR=1 the SM clock and power are
    sampled every 50 ms and the windows are recorded to align them."""
    s, h, inter, qkv = 4096, 4096, 14336, 6144
    shapes = [(s, qkv, h), (s, h, h), (s, 2 * inter, h), (s, h, inter),  # forward
              (s, h, qkv), (s, h, h), (s, h, 2 * inter), (s, inter, h),  # input gradients
              (qkv, h, s), (h, h, s), (2 * inter, h, s), (h, inter, s)]  # weight gradients
    flops = sum(2 * m * n * k for m, n, k in shapes)
    for scale in (1.0, 0.02):
        ops = [(torch.randn(m, k, device=DEV, dtype=torch.bfloat16) * scale,
                torch.randn(k, n, device=DEV, dtype=torch.bfloat16) * scale) for m, n, k in shapes]
        for copy_mib in (0, 128, 512):
            src = torch.empty(copy_mib << 20, device=DEV, dtype=torch.uint8) if copy_mib else None
            dst = torch.empty_like(src) if copy_mib else None
            rounds, wall0, w = [], time.time(), time.perf_counter()
            while time.perf_counter() - w < 3.0:
                ev = [torch.cuda.Event(enable_timing=True) for _ in range(2 * len(ops) + 2)]
                ev[-2].record()
                for j, (a, b) in enumerate(ops):
                    ev[2 * j].record()
                    torch.mm(a, b)
                    ev[2 * j + 1].record()
                    if src is not None:
                        dst.copy_(src)
                ev[-1].record()
                torch.cuda.synchronize()
                gemm = sum(ev[2 * j].elapsed_time(ev[2 * j + 1]) for j in range(len(ops))) / 1e3
                rounds.append((time.time(), gemm, ev[-2].elapsed_time(ev[-1]) / 1e3))
            late = rounds[len(rounds) // 2:]
            gemm_s = sorted(r[1] for r in late)[len(late) // 2]
            total_s = sorted(r[2] for r in late)[len(late) // 2]
            emit(kind="power_mix", scale=scale, copy_MiB=copy_mib, rounds=len(rounds), gemm_s=gemm_s,
                 round_s=total_s, gemm_share=gemm_s / total_s, gemm_TFLOPs=flops / gemm_s / 1e12,
                 first_gemm_TFLOPs=flops / rounds[0][1] / 1e12, window=[wall0, time.time()],
                 late_window=[late[0][0], late[-1][0]], shapes=shapes)
            del src, dst
        del ops
        torch.cuda.empty_cache()


@section("wgrad_accum")
def wgrad_accum():
    """The weight-gradient GEMMs of a Llama 3 8B layer (M = output features, N = input features,
    K = tokens) four ways: a bf16 result; an fp32 result (out_dtype); accumulated into an fp32
    main gradient by the GEMM itself (addmm with beta 1 and out_dtype fp32, what Megatron's
    gradient_accumulation_fusion does); and a bf16 result added into the fp32 gradient by a
    second kernel (the unfused way)."""
    h, inter, qkv = 4096, 14336, 6144
    for tokens in (2048, 4096, 8192):
        for name, (m, n) in {"qkv": (qkv, h), "o": (h, h), "gate_up": (2 * inter, h), "down": (h, inter)}.items():
            dy = torch.randn(m, tokens, device=DEV, dtype=torch.bfloat16)
            x = torch.randn(tokens, n, device=DEV, dtype=torch.bfloat16)
            main = torch.zeros(m, n, device=DEV, dtype=torch.float32)
            ways = {"bf16": lambda i: torch.mm(dy, x),
                    "fp32_out": lambda i: torch.mm(dy, x, out_dtype=torch.float32),
                    "fp32_accumulate": lambda i: torch.addmm(main, dy, x, out_dtype=torch.float32, out=main),
                    "bf16_then_add": lambda i: main.add_(torch.mm(dy, x))}
            flops = 2 * m * n * tokens
            for way, fn in ways.items():
                try:
                    t, how = timed(fn, gemm_reps(flops, 2 * m * n))
                    emit(kind="wgrad_accum", shape=name, m=m, n=n, k=tokens, way=way, time_s=t,
                         TFLOPs=flops / t / 1e12, timing=how)
                except Exception as e:
                    emit(kind="wgrad_accum", shape=name, m=m, n=n, k=tokens, way=way, error=repr(e)[:300])
            del dy, x, main
        torch.cuda.empty_cache()


@section("sustained")
def sustained():
    """Matmul rate over ~6 s of back-to-back 8192^3 products, with the SM clock and power sampled."""
    mon = smi_sampler("clocks.sm,power.draw,temperature.gpu", 200)
    n = 8192
    for data in ("randn", "zeros"):
        for dt in ("bf16", "fp8"):
            mk = torch.randn if data == "randn" else torch.zeros
            if dt == "bf16":
                a = mk(n, n, device=DEV, dtype=torch.bfloat16)
                b = mk(n, n, device=DEV, dtype=torch.bfloat16)
                op = lambda: a @ b
            else:
                a = mk(n, n, device=DEV).to(torch.float8_e4m3fn)
                b = mk(n, n, device=DEV).to(torch.float8_e4m3fn).t()
                one = torch.ones((), device=DEV)
                op = lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16,
                                              use_fast_accum=True)
            rates = []
            w = time.time()
            while time.time() - w < 3.0:
                e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                e0.record()
                for _ in range(20):
                    op()
                e1.record()
                torch.cuda.synchronize()
                rates.append(20 * 2 * n ** 3 / (e0.elapsed_time(e1) / 1e3) / 1e12)
            emit(kind="sustained_gemm", dtype=dt, data=data, m=n, n=n, k=n, first_TFLOPs=rates[0],
                 last_TFLOPs=rates[-1], median_TFLOPs=sorted(rates)[len(rates) // 2], chunks=len(rates),
                 seconds=round(time.time() - w, 2))
            del a, b
    samples = smi_samples(mon)
    emit(kind="sustained_monitor", samples=[[float(x) for x in row] for row in samples if len(row) == 3],
         fields=["sm_MHz", "power_W", "temp_C"])


@section("grouped_gemm_fp8")
def grouped_gemm_fp8():
    f8 = torch.float8_e4m3fn
    for name, (g, n, k) in GROUPED.items():
        w = torch.randn(g, n, k, device=DEV).to(f8)
        sb = torch.ones(g, n, device=DEV, dtype=torch.float32)
        for per in (16, 64, 256, 1024):
            tot = g * per
            x = torch.randn(tot, k, device=DEV).to(f8)
            sa = torch.ones(tot, device=DEV, dtype=torch.float32)
            offs = torch.arange(per, tot + 1, per, device=DEV, dtype=torch.int32)
            flops = 2 * tot * n * k
            try:
                t, how = timed(lambda i: torch._scaled_grouped_mm(x, w.transpose(-2, -1), sa, sb, offs=offs,
                                                                  out_dtype=torch.bfloat16, use_fast_accum=True),
                               gemm_reps(flops, g * n * k))
            except Exception as e:
                emit(kind="grouped_gemm", dtype="fp8_e4m3", shape=name, m_per_group=per, error=repr(e)[:400])
                return
            emit(kind="grouped_gemm", dtype="fp8_e4m3", scaling="row", shape=name, groups=g, m_per_group=per, n=n,
                 k=k, time_s=t, TFLOPs=flops / t / 1e12, timing=how, weight_copies=1)
        del w


@section("decode_profile")
def decode_profile():
    """Kernels per eager decode step and their summed GPU time, from the PyTorch profiler."""
    from torch.profiler import ProfilerActivity, profile
    for mname in ("llama3.2-1b", "llama3-8b"):
        cfg = MODELS[mname]
        model = Llama(cfg)
        d = cfg["hidden"] // cfg["heads"]
        for b, ctx in ((1, 1024), (64, 1024)):
            model.alloc_cache(b, ctx)
            tok = torch.randint(0, cfg["vocab"], (b,), device=DEV)
            cos = torch.randn(b, 1, 1, d // 2, device=DEV, dtype=torch.bfloat16)
            sin = torch.randn(b, 1, 1, d // 2, device=DEV, dtype=torch.bfloat16)
            for _ in range(3):
                model.decode(tok, ctx - 1, cos, sin)
            torch.cuda.synchronize()
            with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
                model.decode(tok, ctx - 1, cos, sin)
                torch.cuda.synchronize()
            kern = [e for e in prof.events() if str(e.device_type).endswith("CUDA")]
            busy = sum(e.time_range.elapsed_us() for e in kern) / 1e6
            eager = eager_time(lambda i: model.decode(tok, ctx - 1, cos, sin), 3, rounds=3)
            g = graph_time(lambda i: model.decode(tok, ctx - 1, cos, sin), 3, replays=3)
            emit(kind="decode_profile", model=mname, batch=b, context=ctx, kernels=len(kern), kernel_busy_s=busy,
                 eager_s=eager, graph_s=g)
            model.cache = None
        del model
        torch.cuda.empty_cache()


if __name__ == "__main__":
    e = env()
    json.dump(e, open(os.path.join(OUT, "env.json"), "w"), indent=1)
    print(json.dumps(e), flush=True)
    runs = (launch, bandwidth, elementwise, gemm_bf16, decode_step, attention, grouped_gemm, gemm_fp8,
            grouped_gemm_fp8, decode_profile, sustained, attention_train, train_layer, power_mix, wgrad_accum)
    only = os.environ.get("SECTIONS")
    monitor = smi_sampler("timestamp,clocks.sm,power.draw", 50) if os.environ.get("MONITOR") else None
    for run in runs:
        if only and run.__name__ not in only.split(","):
            continue
        run()
        print(f"[{time.time() - T0:6.1f}s] {run.__name__}", flush=True)
    if monitor:
        emit(kind="monitor", fields=["timestamp", "sm_MHz", "power_W"], time_zone_offset_s=time.localtime().tm_gmtoff,
             samples=smi_samples(monitor))
    e["smi_after"] = smi("clocks.sm,clocks.mem,temperature.gpu,power.draw")
    json.dump(e, open(os.path.join(OUT, "env.json"), "w"), indent=1)
    RES.close()
    n = sum(1 for _ in open(os.path.join(OUT, "kernels.jsonl")))
    print(f"done in {time.time() - T0:.1f}s, {n} records", flush=True)
