#!/usr/bin/env python3
"""Metamorphic checks over generated scenarios, through the CLI: answers that must move one way.

Faster devices never slow anything down (every bandwidth doubled, or every peak rate doubled), and
more work never speeds anything up (an RL step's prompts or responses doubled, a static batch
doubled). Each family generates scenarios from a fixed seed, predicts each with its variants and
prints every counterexample with the scenario, then a count. Nothing is fitted or compared with a
measurement. The suite keeps the cheap, fast-running part of this as unit tests
(tests/unit/property_test.cpp: the dense training and inference properties, and the RL ones this
script first found broken: docs/rl.md, Layouts); this script reaches the slower families too, with
the layout left to the engine ("auto") where a published run does not state it. Known to fail:
`--family rl --jobs 150` finds 1 job (Qwen3-235B split 32 + 32 on DGX B200, staleness 1) whose
step grows 0.28% with every peak rate doubled (2 jobs, 0.07-0.28%, before the runtimes' custom
all-reduce reached 8 MiB): a searched RL trainer is the fastest step among a few of
the search's layouts, ordered by their updates and weight-sync gathers, and these steps are the
rollout plus the sync (docs/rl.md, Layouts). While the search ranked at micro-batch 1 it found 3,
by 1.0-2.9%.

usage: scripts/sweep_monotone.py [--cli PATH] [--family rl|moe|serving|inference|training|run] [--jobs N]

  rl         RL jobs (8B-235B, four systems, colocated and split): bandwidths or peaks x2 never
             lengthen the step; prompts or responses x2 never shorten it; prefix caching never
             lengthens the rollout by more than 10%
  moe        MoE training with parallel "auto" (slow: a search per prediction): bandwidths or peaks
             x2 never lengthen the iteration; the global batch x2 lengthens it by at most 2.05x
  serving    served streams at stated layouts: a higher Poisson rate never lowers TTFT, the
             end-to-end latency or the throughput (2% slack for the simulator's sampling);
             bandwidths or peaks x2 never raise them; prompts x2 never lower TTFT; replicas x2
             for the same stream never raise TTFT or the end-to-end latency
  inference  static MoE inference: a larger batch never lowers TPOT or TTFT; x2 never slower
  training   dense training with parallel "auto" (a search per prediction): bandwidths or peaks x2
             never lengthen the iteration; the global batch x2 lengthens it by at most 2.05x, the
             sequence x2 by at most 4.1x, and neither shortens it
  run        whole runs of those jobs with failures at 3e-5 per device-hour: bandwidths or peaks x2
             never lengthen the wall time; twice the tokens take 2-2.1x as long; more failures or
             longer restarts never shorten it, faster checkpoint writes never lengthen it
"""
import json
import random
import sys

from fitlib import ScriptParser, answer


class Engine:
    def __init__(self, cli):
        self.cli = cli

    def predict(self, s):
        return answer(self.cli, ["predict", "-", "--json"], json.dumps(s))

    def faster(self, s, bandwidths):
        """The scenario with its system inline and every bandwidth (or every peak rate) doubled."""
        r = answer(self.cli, ["validate", "-"], json.dumps(s)).get("scenario")
        if r is None:
            return None
        sysm, dev = r["system"], r["system"]["device"]
        if bandwidths:
            dev["memory"]["bandwidth_GBps"] *= 2
            if "l2" in dev:
                dev["l2"]["bandwidth_GBps"] *= 2
            for tier in ("scale_up", "scale_out"):
                if tier in sysm:
                    sysm[tier]["bandwidth_GBps"] *= 2
                    for row in sysm[tier].get("allreduce_busbw_GBps", []):
                        row[1] *= 2
        else:
            for p in dev["peak_tflops"]:
                dev["peak_tflops"][p] *= 2
            for key in ("vector_tflops", "exp_tops"):
                if key in dev:
                    dev[key] *= 2
        return r


def copy(s):
    """A deep copy of a scenario (plain JSON), to change one key of."""
    return json.loads(json.dumps(s))


def at(o, path):
    for k in path.split("."):
        o = o[k]
    return o


def on_faster_devices(e, s, o, paths, slack, bad):
    """Every bandwidth, then every peak rate, doubled: no number at `paths` may grow past `slack`."""
    for bandwidths in (True, False):
        f = e.faster(s, bandwidths)
        of = e.predict(f) if f else {"error": {}}
        if "error" in of:
            continue
        for path in paths:
            if at(of, path) > at(o, path) * (1 + slack):
                bad.append(("x2 %s: %s higher" % ("bandwidths" if bandwidths else "peaks", path), at(o, path),
                            at(of, path), s))


def doubled(e, s, o, key, metric, low, high, bad):
    """`training.<key>` of `s` (predicted as `o`) doubled: the number at `metric` must grow by a
    factor within [low, high]."""
    t = copy(s)
    t["training"][key] *= 2
    before, ot = at(o, metric), e.predict(t)
    if "error" in ot:
        return
    ratio = at(ot, metric) / before
    if ratio < low * (1 - 1e-3) or ratio > high:
        bad.append(("%s x2: %s x%.3f" % (key, metric, ratio), before, at(ot, metric), s))


def rl_jobs(rng, n):
    models = ["qwen2.5-7b", "llama3.1-8b", "qwen3-30b-a3b", "llama3.1-70b", "qwen3-235b-a22b"]
    sizes = {"qwen2.5-7b": [8, 16, 32], "llama3.1-8b": [8, 16], "qwen3-30b-a3b": [16, 32, 64],
             "llama3.1-70b": [32, 64], "qwen3-235b-a22b": [64, 128]}
    for _ in range(n):
        model = rng.choice(models)
        devices = rng.choice(sizes[model])
        rl = {"prompts_per_step": rng.choice([64, 128, 256]), "samples_per_prompt": rng.choice([4, 8, 16]),
              "prompt_len": rng.choice([512, 1024, 2048]),
              "response_len": rng.choice([2048, 4096, {"mean": 2000, "max": 8192}]), "train": "auto"}
        if rng.random() < 0.5:
            rl.update(placement="split", rollout_devices=devices // 2, train_devices=devices - devices // 2)
            if rng.random() < 0.5:
                rl["async"] = {"staleness": 1}
        yield {"model": model, "system": rng.choice(["dgx-h100", "gb200-nvl72", "dgx-b200", "hgx-h800"]),
               "num_devices": devices, "rl": rl}


def check_rl(e, s, o, bad):
    step = o["rl"]["step_time_s"]
    on_faster_devices(e, s, o, ["rl.step_time_s"], 1e-9, bad)
    more = copy(s)
    more["rl"]["prompts_per_step"] *= 2
    longer = copy(s)
    r = longer["rl"]["response_len"]
    longer["rl"]["response_len"] = {k: 2 * v for k, v in r.items()} if isinstance(r, dict) else 2 * r
    for what, t in (("prompts x2", more), ("responses x2", longer)):
        ot = e.predict(t)
        if "error" not in ot and ot["rl"]["step_time_s"] < step * (1 - 1e-9):
            bad.append((what + ": step shorter", step, ot["rl"]["step_time_s"], s))
    # Sharing a prompt's prefill and blocks never lengthens the rollout by much: the same responses
    # with and without it, but the prompts' lengths are drawn per prompt or per sample, and the
    # engine that decodes the step's longest response serves other companions (a prompt's samples
    # together, or the i-th sample of every prompt), which moves the makespan by a few percent:
    # Qwen3-235B on 128 H100 / B200 at tp 8, 2.9-7.5% longer with it (--jobs 150). 10% slack.
    own = copy(s)
    own["rl"].setdefault("rollout", {})["prefix_caching"] = False
    oo = e.predict(own)
    rollout = o["rl"]["phases_s"]["rollout"]
    if "error" not in oo and rollout > 1.10 * oo["rl"]["phases_s"]["rollout"]:
        bad.append(("prefix caching: rollout longer", oo["rl"]["phases_s"]["rollout"], rollout, s))


def moe_jobs(rng, n):
    sizes = {"qwen3-30b-a3b": [8, 16, 32], "mixtral-8x7b": [16, 32], "deepseek-v3": [256],
             "qwen3-235b-a22b": [64, 128], "gpt-oss-120b": [16, 64], "llama4-scout": [32]}
    for _ in range(n):
        model = rng.choice(sorted(sizes))
        devices = rng.choice(sizes[model])
        yield {"model": model, "system": rng.choice(["dgx-h100", "gb200-nvl72", "dgx-b200", "hgx-h800", "mi300x-8"]),
               "num_devices": devices, "parallel": "auto",
               "training": {"global_batch": 4 * devices, "seq_len": 4096, "precision": rng.choice(["bf16", "fp8"])}}


def check_moe(e, s, o, bad):
    on_faster_devices(e, s, o, ["training.iteration_time_s"], 1e-3, bad)
    doubled(e, s, o, "global_batch", "training.iteration_time_s", 1, 2.05, bad)


SERVED = [("llama3.1-8b", {"tp": 1, "dp": 8}), ("llama3.1-8b", {"tp": 2, "dp": 4}), ("llama3.3-70b", {"tp": 4, "dp": 2}),
          ("llama3.3-70b", {"tp": 8}), ("qwen3-30b-a3b", {"tp": 2, "dp": 4}), ("mixtral-8x7b", {"tp": 4, "dp": 2}),
          ("deepseek-v3", {"tp": 8}), ("gpt-oss-120b", {"tp": 2, "dp": 4}), ("qwen3-235b-a22b", {"tp": 8})]


def serving_jobs(rng, n):
    for _ in range(n):
        model, par = rng.choice(SERVED)
        yield {"model": model, "system": rng.choice(["dgx-h100", "dgx-h200", "dgx-b200", "mi300x-8"]),
               "num_devices": 8, "parallel": par,
               "inference": {"prompt_len": rng.choice([512, 2048]), "output_len": rng.choice([256, 1024]),
                             "precision": rng.choice(["fp8", "bf16"]),
                             "serving": {"arrival": "poisson", "num_requests": 300, "requests_per_s": 8}}}


SERVED_METRICS = ["serving.ttft_s.mean", "serving.e2e_latency_s.mean"]


def check_serving(e, s, o, bad):
    prev = None
    for rate in (1, 2, 4, 8, 16, 64):
        t = copy(s)
        t["inference"]["serving"]["requests_per_s"] = rate
        ot = e.predict(t)
        if "error" in ot:
            break
        cur = [at(ot, m) for m in SERVED_METRICS] + [ot["serving"]["output_tokens_per_s"]]
        if prev and any(c < p * 0.98 for c, p in zip(cur, prev)):
            bad.append(("rate %g: TTFT, e2e or throughput lower" % rate, prev, cur, s))
        prev = cur
    on_faster_devices(e, s, o, SERVED_METRICS, 0.02, bad)
    # Longer prompts never bring the first token sooner; twice the replicas for the same stream
    # never make a request slower (2% slack for the simulator's sampling, as above).
    longer = copy(s)
    longer["inference"]["prompt_len"] *= 2
    ol = e.predict(longer)
    if "error" not in ol and at(ol, "serving.ttft_s.mean") < at(o, "serving.ttft_s.mean") * 0.98:
        bad.append(("prompts x2: TTFT lower", at(o, "serving.ttft_s.mean"), at(ol, "serving.ttft_s.mean"), s))
    wider = copy(s)
    wider["num_devices"] *= 2
    wider["parallel"]["dp"] = wider["parallel"].get("dp", 1) * 2
    ow = e.predict(wider)
    if "error" not in ow:
        for m in SERVED_METRICS:
            if at(ow, m) > at(o, m) * 1.02:
                bad.append(("replicas x2: %s higher" % m, at(o, m), at(ow, m), s))


def inference_jobs(rng, n):
    models = [("qwen3-30b-a3b", 2), ("mixtral-8x7b", 4), ("deepseek-v3", 8), ("gpt-oss-120b", 2),
              ("qwen3-235b-a22b", 8), ("llama4-scout", 4), ("kimi-k2", 8)]
    for _ in range(n):
        model, tp = rng.choice(models)
        yield {"model": model, "system": rng.choice(["dgx-h100", "dgx-h200", "dgx-b200", "gb200-nvl72", "mi355x-8"]),
               "num_devices": tp, "parallel": {"tp": tp},
               "inference": {"batch": 1, "prompt_len": 1024, "output_len": 256,
                             "precision": rng.choice(["fp8", "bf16", "nvfp4"])}}


def check_inference(e, s, o, bad):
    prev = (o["inference"]["tpot_s"], o["inference"]["ttft_s"])
    for batch in (2, 4, 8, 16, 32, 64, 128, 256):
        t = copy(s)
        t["inference"]["batch"] = batch
        ot = e.predict(t)
        if "error" in ot:
            break
        cur = (ot["inference"]["tpot_s"], ot["inference"]["ttft_s"])
        if cur[0] < prev[0] * (1 - 1e-3) or cur[1] < prev[1] * (1 - 1e-3):
            bad.append(("batch %d: TPOT or TTFT lower" % batch, prev, cur, s))
        prev = cur
    on_faster_devices(e, s, o, ["inference.tpot_s", "inference.ttft_s", "inference.e2e_latency_s"], 1e-4, bad)


DENSE = {"llama3.1-8b": [8, 16, 64], "qwen2.5-14b": [16, 32], "llama3.1-70b": [64, 128, 256], "gpt3-175b": [256, 512],
         "llama3.2-1b": [8, 32], "mistral-7b": [8, 32]}


def training_jobs(rng, n):
    for _ in range(n):
        model = rng.choice(sorted(DENSE))
        devices = rng.choice(DENSE[model])
        yield {"model": model, "system": rng.choice(["dgx-h100", "dgx-a100-80gb", "dgx-b200", "gb200-nvl72", "mi300x-8"]),
               "num_devices": devices, "parallel": "auto",
               "training": {"global_batch": rng.choice([2, 4, 8]) * devices, "seq_len": rng.choice([2048, 4096, 8192]),
                            "precision": rng.choice(["bf16", "fp8"])}}


def check_training(e, s, o, bad):
    on_faster_devices(e, s, o, ["training.iteration_time_s"], 1e-3, bad)
    # A doubled batch is at most twice the work; a doubled sequence more (attention grows with it).
    doubled(e, s, o, "global_batch", "training.iteration_time_s", 1, 2.05, bad)
    doubled(e, s, o, "seq_len", "training.iteration_time_s", 1, 4.1, bad)


def run_jobs(rng, n):
    for s in training_jobs(rng, n):
        s["training"]["train_tokens"] = rng.choice([1e11, 1e12, 1.5e13])
        yield s


def with_operations(e, s, change):
    """The scenario with its system inline and system.operations changed by `change`."""
    r = answer(e.cli, ["validate", "-"], json.dumps(s)).get("scenario")
    if r is None:
        return None
    change(r["system"].setdefault("operations", {}))
    return r


def check_run(e, s, o, bad):
    """Failures at a known rate (the base run: 3e-5 per device-hour, 600 s restarts); then each term."""
    base = with_operations(e, s, lambda ops: ops.update(failures_per_device_hour=3e-5, restart_s=600))
    ob = e.predict(base) if base else {"error": {}}
    if "error" in ob:
        return
    wall = ob["run"]["wall_time_s"]
    on_faster_devices(e, base, ob, ["run.wall_time_s"], 1e-3, bad)
    doubled(e, base, ob, "train_tokens", "run.wall_time_s", 2, 2.1, bad)
    changes = (("failures x2", lambda ops: ops.update(failures_per_device_hour=6e-5), 1),
               ("restarts x2", lambda ops: ops.update(restart_s=1200), 1),
               ("checkpoint writes x2 faster",
                lambda ops: ops.update(checkpoint_write_GBps_per_node=2 * ops["checkpoint_write_GBps_per_node"]), -1))
    for what, change, sign in changes:
        t = copy(base)
        change(t["system"]["operations"])
        ot = e.predict(t)
        if "error" in ot:
            continue
        w = ot["run"]["wall_time_s"]
        if (sign > 0 and w < wall * (1 - 1e-9)) or (sign < 0 and w > wall * (1 + 1e-9)):
            bad.append(("%s: wall time %s" % (what, "shorter" if sign > 0 else "longer"), wall, w, base))


FAMILIES = {"rl": (rl_jobs, check_rl, 40), "moe": (moe_jobs, check_moe, 20),
            "serving": (serving_jobs, check_serving, 30), "inference": (inference_jobs, check_inference, 40),
            "training": (training_jobs, check_training, 40), "run": (run_jobs, check_run, 30)}


def main():
    ap = ScriptParser(__doc__)
    ap.add_argument("--family", choices=sorted(FAMILIES), action="append")
    ap.add_argument("--jobs", type=int, help="scenarios per family (default: the family's own)")
    a = ap.parse_args()
    e = Engine(a.cli)
    total_bad = 0
    for name in a.family or sorted(FAMILIES):
        make, check, default_n = FAMILIES[name]
        bad, checked, refused = [], 0, {}
        for s in make(random.Random(7), a.jobs or default_n):
            o = e.predict(s)
            if "error" in o:
                refused[o["error"].get("code")] = refused.get(o["error"].get("code"), 0) + 1
                continue
            checked += 1
            check(e, s, o, bad)
        for what, before, after, s in bad:
            print(f"{name}: {what}: {before} -> {after}\n  {json.dumps(s)}")
        print(f"{name}: {checked} scenarios checked, {len(bad)} counterexamples; refused: {refused or 'none'}")
        total_bad += len(bad)
    return 1 if total_bad else 0


if __name__ == "__main__":
    sys.exit(main())
