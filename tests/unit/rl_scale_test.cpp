// RL post-training at scale (issue 40): published-style jobs as a scorer would write them from a
// paper or a blog (8B to 671B, dense and MoE, H100, H800 and GB200, colocated and split, sync and
// staleness 1, explicit layouts and train "auto"). Every one must predict, and each phase must sit
// within hand-computed bounds, not the engine's own outputs pasted in:
// - rollout: the decode step implied by the run (running batch x engines / output tokens per s)
//   against a memory-bandwidth back-of-envelope: (weights the step touches + the running batch's
//   KV cache) / (engine devices x HBM bandwidth x 0.8). The weights touched of an MoE layer are
//   the experts any of the step's tokens routes to: 1 - (1 - k / E)^tokens of them (uniform
//   routing). Bound: 0.5x to 2.5x for a dense engine within one node, 3.5x for an MoE one, 4x for
//   an engine over several nodes (its all-reduces cross the NIC, which the back-of-envelope leaves
//   out). The implied step is token-weighted (steps at a large batch emit more tokens) while the
//   batch is time-weighted, so the implied step sits above the back-of-envelope at the mean batch,
//   the more so where the step grows faster with the batch: an MoE's experts touched (DeepSeek-V3
//   at tp 4 on GB200: 16.5 ms a token at a batch of 11 in the engine's own inference predict,
//   26 ms implied by the rollout whose batch runs from 64 down to 1).
// - train: 6 x active parameters x tokens (x 4/3 under full recompute) / (devices x peak x MFU),
//   the update inside MFU 0.07-0.6 (MoE trainers run at 0.1-0.3, dense at 0.3-0.5; a pipeline
//   with few packed micro-batches per rank lower still).
// - weight sync: at least the policy's bytes over one device's link (NVLink inside one domain,
//   else the NIC), at most 3x that plus a second (the gather of the trainer's shards comes first).
// - tokens: the step's responses x (mean prompt + mean response) within 10% (the simulator draws
//   the lengths), the means as given or the priors of docs/rl.md (a fifth of a prompt limit, a
//   quarter of a response limit up to 2,048 tokens).
// - the step: colocated, the sum of its phases; split with staleness 1, the slower side plus sync.
// Model constants from the presets' configs (Hugging Face config.json, counted by hand below).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "io/api.h"

namespace rl_scale_test {

namespace {

using json = nlohmann::json;

struct ModelFacts {
  const char* id;
  double total, active, non_expert;  // parameters
  double experts, top_k;             // routed experts per MoE layer, per token (0: dense)
  double kv_bytes;                   // KV cache per token at 16 bits
  double kv_heads;                   // tp splits the cache by KV head (MLA's latent: 1, read whole)
  double hidden, layers;             // a tp engine all-reduces hidden x 2 bytes a token twice a layer
};
// qwen3-8b: 36 x (attention 4096^2 x 2 + 2 x 4096 x 1024, MLP 3 x 4096 x 12288) + 2 x 151936 x
// 4096 = 8.19e9; KV 36 x 2 x 8 x 128 x 2 B. llama3.1-8b: 8.03e9 (Meta's card); KV 32 layers x 8
// heads. qwen3-32b: 64 x (2 x 5120 x 8192 + 2 x 5120 x 1024 + 3 x 5120 x 25600) + 2 x 151936 x 5120
// = 32.8e9. qwen3-30b-a3b: 48 layers x 128 experts x 3 x 2048 x 768 = 29.0e9 in experts of 30.5e9,
// 3.3e9 active; KV 48 x 2 x 4 x 128 x 2 B. qwen3-235b-a22b: 94 x 128 x 3 x 4096 x 1536 = 227e9 in
// experts of 235e9, 22e9 active; KV 94 layers x 4 heads. deepseek-v3: 58 MoE layers x 256 x 3 x
// 7168 x 2048 = 654e9 in routed experts of 671e9, 37e9 active; MLA KV 61 x (512 + 64) x 2 B.
constexpr ModelFacts kModels[] = {
    {"qwen3-8b", 8.19e9, 8.19e9, 8.19e9, 0, 0, 36 * 2 * 8 * 128 * 2, 8, 4096, 36},
    {"llama3.1-8b", 8.03e9, 8.03e9, 8.03e9, 0, 0, 32 * 2 * 8 * 128 * 2, 8, 4096, 32},
    {"qwen3-32b", 32.8e9, 32.8e9, 32.8e9, 0, 0, 64 * 2 * 8 * 128 * 2, 8, 5120, 64},
    {"qwen3-30b-a3b", 30.5e9, 3.3e9, 1.5e9, 128, 8, 48 * 2 * 4 * 128 * 2, 4, 2048, 48},
    {"qwen3-235b-a22b", 235e9, 22e9, 8e9, 128, 8, 94 * 2 * 4 * 128 * 2, 4, 4096, 94},
    {"deepseek-v3", 671e9, 37e9, 17e9, 256, 8, 61 * 576 * 2, 1, 7168, 61},
};
struct SystemFacts {
  const char* id;
  double hbm_bw, peak_bf16, nic, nvlink;  // per device, bytes/s and FLOP/s
  int node, domain;
};
// presets/devices: H100 and H800 3.35 TB/s HBM3 and 989 TFLOPS dense bf16; GB200 8 TB/s and 2.5
// PFLOPS. presets/systems: 400 Gb/s (50 GB/s) NIC per GPU; NVLink 450 GB/s per direction (H100),
// 200 (H800's export limit), 900 (NVL72, one 72-GPU domain of 4-GPU trays).
constexpr SystemFacts kSystems[] = {
    {"dgx-h100", 3.35e12, 989e12, 50e9, 450e9, 8, 8},
    {"hgx-h800", 3.35e12, 989e12, 50e9, 200e9, 8, 8},
    {"gb200-nvl72", 8e12, 2500e12, 50e9, 900e9, 4, 72},
};

const ModelFacts& model_of(const std::string& id) {
  for (const auto& m : kModels)
    if (id == m.id) return m;
  throw std::runtime_error("no facts for " + id);
}
const SystemFacts& system_of(const std::string& id) {
  for (const auto& s : kSystems)
    if (id == s.id) return s;
  throw std::runtime_error("no facts for " + id);
}

json job(const char* model, const char* system, int devices, const json& rl) {
  return {{"model", model}, {"system", system}, {"num_devices", devices}, {"rl", rl}};
}

// The scenarios: a Qwen3 / Llama 8B GRPO on 8-64 H100 (colocated vLLM with an FSDP or Megatron
// trainer, split SGLang at staleness 1), Qwen3-32B (32.8B parameters; the Qwen2.5-32B of DAPO's
// recipe has 32.5B, no preset) and Qwen3-30B-A3B on 32-64 H100 / H800, Qwen3-235B-A22B and
// DeepSeek-V3 on 128-512 H100 / H800 / GB200 with SGLang engines (DeepSeek-V3 on H800 with DP
// attention over an expert-parallel group of 32, SGLang's large-scale deployment) and Megatron
// tp / pp / ep / etp trainers. Lengths as recipes state them: limits (whole numbers) or stated means.
json scenarios() {
  json s = json::array();
  s.push_back(job("qwen3-8b", "dgx-h100", 8,
                  {{"prompts_per_step", 128},
                   {"samples_per_prompt", 8},
                   {"prompt_len", 1024},
                   {"response_len", {{"mean", 1500}, {"max", 8192}}},
                   {"mini_batches", 4},
                   {"rollout", {{"tp", 1}, {"software", "vllm"}}},
                   {"train", {{"zero_stage", 3}}}}));
  s.push_back(job("llama3.1-8b", "dgx-h100", 16,
                  {{"prompts_per_step", 256},
                   {"samples_per_prompt", 8},
                   {"prompt_len", 512},
                   {"response_len", 4096},
                   {"mini_batches", 4},
                   {"train", "auto"}}));
  s.push_back(job("qwen3-8b", "dgx-h100", 64,
                  {{"prompts_per_step", 512},
                   {"samples_per_prompt", 16},
                   {"prompt_len", {{"mean", 300}, {"max", 2048}}},
                   {"response_len", {{"mean", 4000}, {"max", 16384}}},
                   {"mini_batches", 8},
                   {"rollout", {{"tp", 2}}},
                   {"train", {{"tp", 2}}}}));
  s.push_back(job("llama3.1-8b", "dgx-h100", 8,
                  {{"placement", "split"},
                   {"rollout_devices", 4},
                   {"train_devices", 4},
                   {"prompts_per_step", 64},
                   {"samples_per_prompt", 8},
                   {"prompt_len", 1024},
                   {"response_len", 4096},
                   {"async", {{"staleness", 1}}},
                   {"rollout", {{"tp", 1}, {"software", "sglang"}}},
                   {"train", {{"zero_stage", 3}}}}));
  s.push_back(job("qwen3-32b", "dgx-h100", 32,
                  {{"prompts_per_step", 512},
                   {"samples_per_prompt", 16},
                   {"prompt_len", 2048},
                   {"response_len", 20480},
                   {"mini_batches", 16},
                   {"rollout", {{"tp", 4}}},
                   {"train", {{"tp", 8}, {"pp", 2}}}}));
  s.push_back(job("qwen3-32b", "hgx-h800", 64,
                  {{"prompts_per_step", 256},
                   {"samples_per_prompt", 8},
                   {"prompt_len", {{"mean", 400}, {"max", 2048}}},
                   {"response_len", {{"mean", 3000}, {"max", 16384}}},
                   {"mini_batches", 4},
                   {"train", "auto"}}));
  s.push_back(job("qwen3-30b-a3b", "hgx-h800", 32,
                  {{"prompts_per_step", 256},
                   {"samples_per_prompt", 8},
                   {"prompt_len", 1024},
                   {"response_len", 8192},
                   {"mini_batches", 4},
                   {"rollout", {{"tp", 2}}},
                   {"train", {{"tp", 2}, {"ep", 8}}}}));
  s.push_back(job("qwen3-30b-a3b", "dgx-h100", 64,
                  {{"placement", "split"},
                   {"rollout_devices", 32},
                   {"train_devices", 32},
                   {"prompts_per_step", 512},
                   {"samples_per_prompt", 8},
                   {"prompt_len", 1024},
                   {"response_len", {{"mean", 2500}, {"max", 16384}}},
                   {"mini_batches", 8},
                   {"async", {{"staleness", 1}}},
                   {"rollout", {{"software", "sglang"}}},
                   {"train", "auto"}}));
  s.push_back(job("qwen3-235b-a22b", "dgx-h100", 128,
                  {{"prompts_per_step", 256},
                   {"samples_per_prompt", 8},
                   {"prompt_len", 1024},
                   {"response_len", 8192},
                   {"mini_batches", 4},
                   {"rollout", {{"tp", 8}, {"ep", 8}, {"software", "sglang"}}},
                   {"train", {{"tp", 4}, {"pp", 8}, {"ep", 8}, {"etp", 1}}}}));
  s.push_back(job("qwen3-235b-a22b", "hgx-h800", 256,
                  {{"placement", "split"},
                   {"rollout_devices", 128},
                   {"train_devices", 128},
                   {"prompts_per_step", 512},
                   {"samples_per_prompt", 8},
                   {"prompt_len", 2048},
                   {"response_len", {{"mean", 4000}, {"max", 16384}}},
                   {"mini_batches", 8},
                   {"async", {{"staleness", 1}}},
                   {"rollout", {{"tp", 8}, {"software", "sglang"}}},
                   {"train", {{"tp", 4}, {"pp", 4}, {"ep", 16}}}}));
  s.push_back(job("qwen3-235b-a22b", "gb200-nvl72", 128,
                  {{"prompts_per_step", 256},
                   {"samples_per_prompt", 16},
                   {"prompt_len", 2048},
                   {"response_len", 32768},
                   {"mini_batches", 8},
                   {"rollout", {{"software", "sglang"}}},
                   {"train", "auto"}}));
  s.push_back(job("deepseek-v3", "dgx-h100", 256,
                  {{"prompts_per_step", 128},
                   {"samples_per_prompt", 8},
                   {"prompt_len", 2048},
                   {"response_len", 8192},
                   {"mini_batches", 2},
                   {"rollout", {{"software", "sglang"}, {"precision", "fp8"}}},
                   {"train", {{"tp", 1}, {"pp", 16}, {"ep", 16}, {"etp", 1}, {"zero_stage", 1}}}}));
  s.push_back(job("deepseek-v3", "hgx-h800", 512,
                  {{"placement", "split"},
                   {"rollout_devices", 256},
                   {"train_devices", 256},
                   {"prompts_per_step", 256},
                   {"samples_per_prompt", 16},
                   {"prompt_len", 2048},
                   {"response_len", {{"mean", 3000}, {"max", 16384}}},
                   {"mini_batches", 4},
                   {"async", {{"staleness", 1}}},
                   {"rollout", {{"tp", 1}, {"ep", 32}, {"software", "sglang"}, {"precision", "fp8"}}},
                   {"train", {{"tp", 1}, {"pp", 8}, {"ep", 32}, {"etp", 1}, {"zero_stage", 1}}}}));
  s.push_back(job("deepseek-v3", "gb200-nvl72", 256,
                  {{"prompts_per_step", 256},
                   {"samples_per_prompt", 8},
                   {"prompt_len", 2048},
                   {"response_len", 16384},
                   {"mini_batches", 4},
                   {"rollout", {{"software", "sglang"}, {"precision", "fp8"}}},
                   {"train", "auto"}}));
  return s;
}

// The mean of a length as docs/rl.md reads it: a stated mean, or a limit's prior.
double mean_len(const json& l, double share, double cap) {
  if (l.is_object()) return l["mean"].get<double>();
  return std::min(share * l.get<double>(), cap);
}

TEST(RlScale, EveryJobPredictsWithinHandBounds) {
  for (const json& sc : scenarios()) {
    const json p = json::parse(optimus::api::predict(sc.dump()));
    const std::string name = sc["model"].get<std::string>() + " on " +
                             std::to_string(sc["num_devices"].get<int>()) + " " +
                             sc["system"].get<std::string>();
    ASSERT_FALSE(p.contains("error")) << name << ": " << p.dump();
    const json& r = p["rl"];
    const json& rl = sc["rl"];
    const ModelFacts& m = model_of(sc["model"]);
    const SystemFacts& sys = system_of(sc["system"]);
    const json& ph = r["phases_s"];

    // Tokens of the step.
    const double responses = rl["prompts_per_step"].get<double>() * rl["samples_per_prompt"].get<double>();
    // None of these models' names marks a long chain-of-thought model, so a limit reads with the
    // short_cot prior: a quarter of it, at most 1,024 tokens (docs/rl.md, Lengths).
    const double per_response =
        mean_len(rl["prompt_len"], 0.2, 1e9) + mean_len(rl["response_len"], 0.25, 1024);
    EXPECT_NEAR(r["tokens_per_step"].get<double>(), responses * per_response, 0.1 * responses * per_response)
        << name;

    // Rollout: the implied decode step against the bandwidth back-of-envelope.
    const json& ro = r["rollout"];
    const json& rp = ro["parallel"];
    const int tp = rp["tp"], pp = rp["pp"], dp = rp["dp"], ep = rp["ep"];
    const bool adp = tp == 1 && ep > 1;  // attention data parallelism: an ep group steps together
    const int group = adp ? ep : tp * pp;
    const double batch = ro["mean_batch"].get<double>();
    const double step_tokens = batch * (adp ? ep : 1);
    const bool fp8 = rl.contains("rollout") && rl["rollout"].value("precision", "bf16") == std::string("fp8");
    const double wbytes = fp8 ? 1.0 : 2.0;
    const double coverage = m.experts > 0 ? 1.0 - std::pow(1.0 - m.top_k / m.experts, step_tokens) : 1.0;
    // Per device: the group's share of the experts touched and of the KV cache, and of the rest of
    // the weights (attention, dense and shared layers), which attention data parallelism copies
    // to every device of the group instead of splitting it.
    const double experts = (m.total - m.non_expert) * coverage * wbytes;
    const double rest = m.non_expert * wbytes * (adp ? group : 1);
    // The KV cache: under attention dp each device holds its own sequences'; a tp engine splits
    // it by KV head and every rank reads the heads it has (all of MLA's one latent).
    const double kv_total = step_tokens * per_response * m.kv_bytes;
    const double kv = adp ? kv_total : kv_total * group / std::min<double>(tp, m.kv_heads);
    // A tp engine's two all-reduces a layer (attention and MLP outputs, hidden x 2 bytes a token):
    // at least the ring's bytes over NVLink and the rollout runtime's fixed time per call (its
    // profile's custom_allreduce_us: vLLM's 9 us, SGLang's 6); small beside the weights except on
    // a wide engine of a small model, or on H800's 200 GB/s links.
    const std::string runtime = rl.contains("rollout") ? rl["rollout"].value("software", "vllm") : "vllm";
    const double floor_s =
        json::parse(optimus::api::preset("software", runtime))["software"]["custom_allreduce_us"]
            .get<double>() *
        1e-6;
    const double reduce = step_tokens * m.hidden * 2.0, calls = 2.0 * m.layers;
    const double allreduce = tp > 1 ? calls * (floor_s + 2.0 * (tp - 1) / tp * reduce / sys.nvlink) : 0.0;
    const double boe = (experts + rest + kv) / (group * sys.hbm_bw * 0.8) + allreduce;
    const double implied = batch * dp / ro["output_tokens_per_s"].get<double>();
    const bool multi_node = group > sys.node && sys.domain <= sys.node;
    const double upper = multi_node ? 4.0 : m.experts > 0 ? 3.5 : 2.5;
    EXPECT_GT(implied, 0.5 * boe) << name << ": decode step " << implied << " s, back-of-envelope " << boe;
    // A whole-number limit puts the step's longest response at the limit (docs/rl.md, Lengths): the
    // rollout ends on a tail of a few sequences whose steps read the weights for little batch, which
    // the mean batch's back-of-envelope does not describe. There the bound is from below: the longest
    // response alone takes limit steps, each at least the weights a batch of one reads.
    if (rl["response_len"].is_object()) {
      EXPECT_LT(implied, upper * boe)
          << name << ": decode step " << implied << " s, back-of-envelope " << boe;
    } else {
      const double one = 1.0 - std::pow(1.0 - m.top_k / std::max(m.experts, 1.0), adp ? double(ep) : 1.0);
      const double alone = ((m.total - m.non_expert) * (m.experts > 0 ? one : 1.0) + m.non_expert) * wbytes /
                           (group * sys.hbm_bw);
      EXPECT_GT(ph["rollout"].get<double>(), rl["response_len"].get<double>() * alone) << name;
    }

    // Train: the update against 6 N T / (devices x peak x MFU).
    const json& tr = r["train"];
    const double recompute = tr["parallel"]["recompute"] == "full" ? 4.0 / 3.0 : 1.0;
    const double flops = 6.0 * m.active * r["tokens_per_step"].get<double>() * recompute;
    const double at_peak = flops / (tr["devices"].get<double>() * sys.peak_bf16);
    // The bound is for ranks of equal work: the data-parallel straggler (rl.train.straggler_s,
    // checked by hand in rl_test.cpp) is taken out of the phase first.
    const double balanced = ph["train"].get<double>() - tr["straggler_s"].get<double>();
    EXPECT_GE(tr["straggler_s"].get<double>(), 0.0) << name;
    EXPECT_GT(balanced, at_peak / 0.6) << name;
    // The floor: a 16-stage pipeline over few packed micro-batches is bubble-bound (verl packs by
    // token budget alone; DeepSeek-V3 at pp 16 on 256 H100 comes to about 6% of peak).
    EXPECT_LT(balanced, at_peak / 0.05) << name;

    // Weight sync: the policy's bytes at the engine's precision over one device's link. Split, the
    // engine ranks receive them all (at least that); colocated, they are handed over in device
    // memory after the trainer's gather: none where every trainer rank holds the weights whole,
    // else at least half of them received at NVLink's rate or slower.
    const double link = sc["num_devices"].get<int>() <= sys.domain ? sys.nvlink : sys.nic;
    const double sync = m.total * wbytes / link;
    const bool colocated = rl.value("placement", "colocated") == std::string("colocated");
    const json& tl = tr["parallel"];
    const bool whole =
        tl.value("tp", 1) * tl.value("pp", 1) * tl.value("ep", 1) == 1 && tl.value("zero_stage", 0) < 3;
    const double least = !colocated ? 0.9 * sync : whole ? 0.0 : 0.5 * m.total * wbytes / sys.nvlink;
    EXPECT_GE(ph["weight_sync"].get<double>(), least) << name;
    EXPECT_LT(ph["weight_sync"].get<double>(), 3.0 * sync + 1.0) << name;

    // The step from its phases.
    const double train_side = ph["reward"].get<double>() + ph["reference"].get<double>() +
                              ph["old_logprob"].get<double>() + ph["train"].get<double>();
    const double step = r["step_time_s"].get<double>();
    if (colocated)
      EXPECT_NEAR(step,
                  ph["rollout"].get<double>() + train_side + ph["weight_sync"].get<double>() +
                      ph["swap"].get<double>(),
                  1e-9 * step)
          << name;
    else
      EXPECT_NEAR(step, std::max(ph["rollout"].get<double>(), train_side) + ph["weight_sync"].get<double>(),
                  1e-9 * step)
          << name;
    EXPECT_TRUE(r["memory"]["train"]["fits"].get<bool>()) << name << ": " << r["memory"].dump();

    // OPTIMUS_PRINT_RL_SCALE=1 prints the job's row of docs/rl.md's "At scale" table (the
    // numbers only; the table names the jobs in this order).
    if (std::getenv("OPTIMUS_PRINT_RL_SCALE")) {
      char row[320];
      const std::string engines =
          adp ? "ep " + std::to_string(ep) + " x " + std::to_string(dp) + " (DP attention)"
              : "tp " + std::to_string(tp) + (ep > 1 ? " ep " + std::to_string(ep) : "") + " x " +
                    std::to_string(dp);
      char fit[32] = "limit";
      if (rl["response_len"].is_object()) std::snprintf(fit, sizeof fit, "%.2fx", implied / boe);
      std::snprintf(row, sizeof row, "| %.1f | %.1f | %s | %s | %.1f | %.2f | %.2f s (%.1fx) |", step,
                    ph["rollout"].get<double>(), engines.c_str(), fit, ph["train"].get<double>(),
                    tr["mfu"].get<double>(), ph["weight_sync"].get<double>(),
                    ph["weight_sync"].get<double>() / sync);
      std::printf("%s %s\n", name.c_str(), row);
    }
  }
}

// A chosen rollout tp is the fastest rollout of the powers of two within a scale-up domain (the
// choice also counts a colocated engine's weight swap, which only shrinks as tp grows): a
// synchronous step waits for its longest response, which decodes at a small running batch, where
// a wider engine streams fewer weights per device a token. Qwen3-32B in bf16 is 65.6 GB; at tp 1
// on an H800 (0.9 x 79.6 GiB = 76.9 GB reserved) about 8 GB of KV is left, 30K tokens at 262 KB a
// token: it holds the longest prompt + response (18,432) but not the running batch of 3,400-token
// sequences, so it preempts (vLLM's optimization guide: raise tensor_parallel_size when requests
// are preempted for KV space). An 8B model fits one H100 and its engine still widens.
TEST(RlScale, AChosenRolloutTpIsTheFastestInTheDomain) {
  for (std::size_t job : {std::size_t{5}, std::size_t{1}}) {
    json s = scenarios()[job];
    const json chosen = json::parse(optimus::api::predict(s.dump()));
    ASSERT_FALSE(chosen.contains("error")) << chosen.dump();
    const int tp = chosen["rl"]["rollout"]["parallel"]["tp"].get<int>();
    EXPECT_GT(tp, 1) << job;
    const double rollout = chosen["rl"]["phases_s"]["rollout"].get<double>();
    for (int t : {1, 2, 4, 8}) {
      s["rl"]["rollout"] = {{"tp", t}};
      const json o = json::parse(optimus::api::predict(s.dump()));
      ASSERT_FALSE(o.contains("error")) << o.dump();
      EXPECT_LE(rollout, o["rl"]["phases_s"]["rollout"].get<double>() * (1 + 1e-12)) << job << " tp " << t;
      if (job == 5 && t == 1) {
        EXPECT_GT(o["rl"]["rollout"]["preemptions"].get<int>(), 0);
        EXPECT_GT(o["rl"]["phases_s"]["rollout"].get<double>(), 1.5 * rollout);
      }
    }
  }
}

// More prompts never shorten a step whose rollout tp and trainer layout the engine chooses. With
// the tp widened only while the engine preempted, Llama 3.1 70B on 32 + 32 H800 took 126 s a step
// for 64 prompts and 93 s for 128 (the larger batch preempted at tp 2 and moved to tp 4).
TEST(RlScale, MorePromptsNeverShortenAChosenLayoutsStep) {
  json s = {{"model", "llama3.1-70b"},
            {"system", "hgx-h800"},
            {"num_devices", 64},
            {"rl",
             {{"prompts_per_step", 64},
              {"samples_per_prompt", 8},
              {"prompt_len", 512},
              {"response_len", 4096},
              {"placement", "split"},
              {"rollout_devices", 32},
              {"train_devices", 32},
              {"async", {{"staleness", 1}}},
              {"train", "auto"}}}};
  double last = 0;
  for (int prompts : {32, 64, 128}) {
    s["rl"]["prompts_per_step"] = prompts;
    const json o = json::parse(optimus::api::predict(s.dump()));
    ASSERT_FALSE(o.contains("error")) << o.dump();
    const double step = o["rl"]["step_time_s"].get<double>();
    EXPECT_GE(step, last * (1 - 1e-9)) << prompts << " prompts";
    last = step;
  }
}

// A searched trainer ("auto") is the fastest of the search's best few as the step runs it. Qwen3-235B
// on 64 B200, colocated: with every peak rate doubled the search's first layout was ep 64 where it
// had been ep 32, and packed, its train phase took 20.5 s against 16.1 s on the slower devices
// (the step 93.3 s against 88.9 s); whole steps of the best four fixed it. Qwen3-30B-A3B on 64
// H100 (scripts/sweep_monotone.py --family rl): the search ranked at micro-batch 1, where ep 16
// fell out of the best four on the faster devices though packed it trained faster (ep 32: 7.72 s
// an update against ep 16's 6.51 s, the step 106.9 s against 103.9 s); it now ranks each layout at
// the micro-batches the step packs on it. Qwen3-235B on 128 GB200: ranked at the packs, the best
// four on the faster devices all gathered their shards across the 72-GPU NVLink domain for the
// weight sync (9.9 s where the slower devices' ep 64 took 0.6 s; the step 49.0 s against 40.8 s);
// the candidates are now ordered with that gather.
TEST(RlScale, FasterDevicesNeverLengthenASearchedTrainersStep) {
  const json jobs[] = {{{"model", "qwen3-235b-a22b"},
                        {"system", "dgx-b200"},
                        {"num_devices", 64},
                        {"rl",
                         {{"prompts_per_step", 128},
                          {"samples_per_prompt", 16},
                          {"prompt_len", 1024},
                          {"response_len", 2048},
                          {"placement", "colocated"},
                          {"train", "auto"}}}},
                       {{"model", "qwen3-30b-a3b"},
                        {"system", "dgx-h100"},
                        {"num_devices", 64},
                        {"rl",
                         {{"prompts_per_step", 128},
                          {"samples_per_prompt", 16},
                          {"prompt_len", 1024},
                          {"response_len", {{"mean", 2000}, {"max", 8192}}},
                          {"train", "auto"}}}},
                       {{"model", "qwen3-235b-a22b"},
                        {"system", "gb200-nvl72"},
                        {"num_devices", 128},
                        {"rl",
                         {{"prompts_per_step", 128},
                          {"samples_per_prompt", 8},
                          {"prompt_len", 512},
                          {"response_len", 2048},
                          {"train", "auto"}}}}};
  for (const json& s : jobs) {
    json fast = json::parse(optimus::api::validate(s.dump()))["scenario"];
    for (auto& [p, v] : fast["system"]["device"]["peak_tflops"].items()) v = 2 * v.get<double>();
    const json o = json::parse(optimus::api::predict(s.dump())),
               f = json::parse(optimus::api::predict(fast.dump()));
    ASSERT_FALSE(o.contains("error")) << o.dump();
    ASSERT_FALSE(f.contains("error")) << f.dump();
    // The step, not each phase, where a job's faster devices may trade the update for the sync: the
    // GB200 job's take a trainer 5% slower to update whose sync gathers within the NVLink domain.
    if (&s != &jobs[2]) {
      EXPECT_LE(f["rl"]["phases_s"]["train"].get<double>(), o["rl"]["phases_s"]["train"].get<double>())
          << s["model"];
    }
    EXPECT_LE(f["rl"]["step_time_s"].get<double>(), o["rl"]["step_time_s"].get<double>()) << s["model"];
  }
}

// DeepSeek-V3 at 8 bits is 671 GB: 84 GB per device at tp 8, more than an 80 GB H100, so no engine
// inside one 8-GPU node holds it. The chosen tp goes past the node (SGLang's two-node tp 16
// deployment) instead of refusing the job; the trainer's "auto" layout of a 671B MoE is found
// (the search pads the packed sequence to every layout's tp x 2 cp multiple).
TEST(RlScale, DeepSeekV3OnH100SpansTwoNodesAndItsTrainerIsSearched) {
  json s = scenarios()[11];
  s["rl"]["train"] = "auto";
  const json p = json::parse(optimus::api::predict(s.dump()));
  ASSERT_FALSE(p.contains("error")) << p.dump();
  EXPECT_EQ(p["rl"]["rollout"]["parallel"]["tp"].get<int>(), 16);
  const json& t = p["rl"]["train"]["parallel"];
  EXPECT_GT(t["ep"].get<int>(), 1);
  EXPECT_TRUE(p["rl"]["memory"]["train"]["fits"].get<bool>());
  // At 16 bits (1,342 GB) tp 16 leaves 1,342 / 16 = 84 GB a device: tp 32.
  s["rl"]["rollout"] = {{"software", "sglang"}, {"precision", "bf16"}};
  const json wide = json::parse(optimus::api::predict(s.dump()));
  ASSERT_FALSE(wide.contains("error")) << wide.dump();
  EXPECT_EQ(wide["rl"]["rollout"]["parallel"]["tp"].get<int>(), 32);
  // A stated tp that does not hold the model is still refused, with its code and path.
  s["rl"]["rollout"] = {{"tp", 8}, {"ep", 8}, {"software", "sglang"}, {"precision", "fp8"}};
  const json refused = json::parse(optimus::api::predict(s.dump()));
  EXPECT_EQ(refused["error"]["code"], "rl.rollout_does_not_fit") << refused.dump();
  EXPECT_EQ(refused["error"]["path"], "/rl/rollout");
}

// The placement search of the same job (rollout tp and ep absent) goes past the 8-GPU domain only
// until an engine holds the model at ep 1: tp 16 is evaluated, tp 32 is not, and the colocated tp 16
// candidate is found. No tp within the domain holds the model at ep 1, but each does with its experts
// over 16 devices or more (ep 16: two replicas of tp 8, ..., sixteen of tp 1; attention data
// parallelism), which the search also tries; the step it ranks first is the fastest of them all.
TEST(RlScale, TheSearchAlsoSpreadsTheExpertsOfDeepSeekV3) {
  const json s = scenarios()[11];
  const json res = json::parse(optimus::api::search(s.dump(), R"({"top": 100})"));
  ASSERT_FALSE(res.contains("error")) << res.dump();
  ASSERT_TRUE(res.contains("best")) << res.dump();
  ASSERT_FALSE(res["best"].empty()) << res.dump();
  bool tp16 = false, spread = false;
  for (const json& c : res["best"]) {
    const json& ro = c["rl"]["rollout"]["parallel"];
    EXPECT_LE(ro["tp"].get<int>(), 16) << c.dump();
    tp16 = tp16 || ro["tp"].get<int>() == 16;
    if (ro["ep"].get<int>() > ro["tp"].get<int>()) {
      spread = true;
      EXPECT_LE(ro["tp"].get<int>(), 8) << c.dump();
      EXPECT_GE(ro["ep"].get<int>(), 16) << c.dump();
    }
  }
  EXPECT_TRUE(tp16) << res.dump().substr(0, 600);
  EXPECT_TRUE(spread) << res.dump().substr(0, 600);
  for (std::size_t i = 1; i < res["best"].size(); ++i)
    EXPECT_LE(res["best"][i - 1]["step_time_s"].get<double>(), res["best"][i]["step_time_s"].get<double>());
}

// Ranked by time, a candidate whose rollout alone outlasts the `top` steps already listed cannot
// rank (a step is never shorter than its rollout's makespan), so the search stops its rollout there
// and counts it under rl.slower_than_listed. Its best three are those of the same search listing
// every candidate (top 1000: nothing is stopped), in the same order with the same numbers: Qwen3-235B
// on 64 H100, whose split pools' rollouts run longer than the colocated steps listed first.
TEST(RlScale, TheSearchStopsCandidatesThatCannotRankAndListsTheSameBest) {
  const std::string job = R"({"model": "qwen3-235b-a22b", "system": "dgx-h100", "num_devices": 64,
    "rl": {"prompts_per_step": 128, "samples_per_prompt": 8, "prompt_len": 1024, "response_len": 4096,
    "train": "auto"}})";
  const json all = json::parse(optimus::api::search(job, R"({"top": 1000})"));
  const json three = json::parse(optimus::api::search(job, R"({"top": 3})"));
  ASSERT_FALSE(all.contains("error")) << all.dump().substr(0, 400);
  ASSERT_FALSE(three.contains("error")) << three.dump().substr(0, 400);
  EXPECT_FALSE(all["rejected"].contains("rl.slower_than_listed")) << all["rejected"].dump();
  ASSERT_TRUE(three["rejected"].contains("rl.slower_than_listed")) << three["rejected"].dump();
  const int stopped = three["rejected"]["rl.slower_than_listed"].get<int>();
  EXPECT_GT(stopped, 0);
  EXPECT_EQ(three["evaluated"], all["evaluated"]);
  EXPECT_EQ(three["feasible"].get<int>(), all["feasible"].get<int>() - stopped);
  ASSERT_EQ(three["best"].size(), 3u);
  ASSERT_GE(all["best"].size(), 3u + static_cast<std::size_t>(stopped));
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(three["best"][i], all["best"][i]) << i;
  // Past the three, the whole search lists the candidates it stopped, each slower than the third.
  EXPECT_GT(all["best"][3]["step_time_s"].get<double>(), three["best"][2]["step_time_s"].get<double>());
}

// A split job with a partial rollout is compared with colocated placements run on-policy: the
// colocated candidates drop the async block, its partial rollout with it (they were all refused as
// rl.partial_rollout_needs_staleness, so the search ranked the splits against nothing), and each
// candidate's block says what it was predicted with (the job's staleness had been written for the
// colocated ones too).
TEST(RlScale, TheSearchComparesAPartialRolloutJobWithColocatedPlacements) {
  const std::string job = R"({"model": "llama3.1-8b", "system": "dgx-h100", "num_devices": 16,
    "rl": {"prompts_per_step": 64, "samples_per_prompt": 8, "response_len": 2048, "placement": "split",
    "rollout_devices": 8, "train_devices": 8, "async": {"staleness": 1, "partial_rollout": true}}})";
  const json res = json::parse(optimus::api::search(job, R"({"top": 100})"));
  ASSERT_FALSE(res.contains("error")) << res.dump().substr(0, 400);
  EXPECT_TRUE(res["rejected"].empty()) << res["rejected"].dump();
  int colocated = 0;
  for (const json& c : res["best"])
    if (c["placement"] == "colocated") {
      ++colocated;
      EXPECT_FALSE(c["rl"]["rollout"]["partial"].get<bool>()) << c.dump().substr(0, 300);
      EXPECT_EQ(c["rl"]["staleness"], 0) << c.dump().substr(0, 300);  // as it was predicted
    } else {
      EXPECT_TRUE(c["rl"]["rollout"]["partial"].get<bool>()) << c.dump().substr(0, 300);
    }
  EXPECT_EQ(colocated, 4);  // tp 1, 2, 4 and 8 on the 16 devices
}

// The search keeps what a job states and chooses the rest: a job that states no trainer has it
// searched for every candidate, as "auto" does (the same best, field for field), where a stated
// layout, even an empty one (data parallelism over the pool), is kept. Qwen3-30B-A3B on 32 H100:
// its default trainer (every expert on every device, ZeRO-2 at two sequences a micro-batch, or
// ZeRO-3) is slower than the searched one, so the job's best step is shorter unstated.
TEST(RlScale, TheSearchSearchesAnUnstatedTrainer) {
  const auto job = [](const std::string& train) {
    return R"({"model": "qwen3-30b-a3b", "system": "dgx-h100", "num_devices": 32, "rl": {"prompts_per_step": 128,
      "samples_per_prompt": 8, "prompt_len": 1024, "response_len": 4096)" +
           (train.empty() ? std::string() : R"(, "train": )" + train) + "}}";
  };
  const json unstated = json::parse(optimus::api::search(job(""), R"({"top": 3})"));
  const json automatic = json::parse(optimus::api::search(job(R"("auto")"), R"({"top": 3})"));
  const json kept = json::parse(optimus::api::search(job("{}"), R"({"top": 3})"));
  for (const json* r : {&unstated, &automatic, &kept}) {
    ASSERT_FALSE(r->contains("error")) << r->dump().substr(0, 400);
    ASSERT_EQ((*r)["best"].size(), 3u);
  }
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(unstated["best"][i], automatic["best"][i]) << i;
  EXPECT_LT(unstated["best"][0]["step_time_s"].get<double>(), kept["best"][0]["step_time_s"].get<double>());
  // The kept trainer is the stated one on every candidate: every expert on every device.
  for (const json& c : kept["best"])
    EXPECT_EQ(c["rl"]["train"]["parallel"]["ep"], 1) << c.dump().substr(0, 300);
}

}  // namespace

}  // namespace rl_scale_test
