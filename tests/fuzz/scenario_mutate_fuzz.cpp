// libFuzzer target, structure-aware: the input bytes are a recipe, not JSON. They pick a valid
// base scenario (each preset scenario as stored and with every preset resolved inline, so device
// and network numbers are reachable, plus two small inline scenarios) and then a few edits: a
// number replaced by an awkward value (0, negatives, 2^31, 2^53, 2^63, 1e30, denormals, arbitrary
// bit patterns) or scaled, a value replaced by another type or by a known enum or preset string,
// a key deleted, renamed or added, a subtree copied from another base (mutate.h). Every input is
// well-formed JSON close to a valid scenario, so far more of them reach the engine's arithmetic
// than raw bytes do. The result goes through the same checks as scenario_json (fuzz_check.h).
#include <cstdint>
#include <string>
#include <vector>

#include "mutate.h"

namespace {

using optimus::fuzz::json;

// Small inline scenarios that use the less common keys: GQA, SwiGLU, untied embeddings, a
// measured all-reduce table, context parallelism, interleaving, full recompute and ZeRO-3.
const char* kSmallTraining = R"({"schema_version": 1, "name": "small training",
  "model": {"layers": 4, "hidden": 256, "heads": 8, "kv_heads": 2, "ffn_hidden": 688, "vocab": 1000,
            "ffn_type": "swiglu", "norm": "rmsnorm", "tied_embeddings": false, "max_seq_len": 4096},
  "system": {"device": "h100-sxm5-80gb", "devices_per_node": 4,
             "scale_up": {"bandwidth_GBps": 300, "latency_us": 2, "domain_size": 4,
                          "allreduce_busbw_GBps": [[1e6, 50], [1e8, 200]]},
             "scale_out": {"bandwidth_GBps": 25, "latency_us": 5},
             "software": {"attention": "standard", "overlap_grad_reduce": false}},
  "num_devices": 16,
  "parallel": {"tp": 2, "pp": 2, "dp": 2, "cp": 2, "micro_batch": 2, "interleave": 2, "recompute": "full",
               "zero_stage": 3},
  "training": {"global_batch": 16, "seq_len": 512, "precision": "fp8", "train_tokens": 1e9}})";
const char* kSmallInference =
    R"({"model": {"layers": 2, "hidden": 64, "heads": 4, "kv_heads": 1, "head_dim": 32,
            "ffn_hidden": 256, "vocab": 512, "ffn_type": "relu2"},
  "system": {"device": {"name": "toy", "peak_tflops": {"fp16": 10, "int8": 20}, "vector_tflops": 1,
                        "exp_tops": 0.5, "memory": {"capacity_GiB": 1, "bandwidth_GBps": 100},
                        "l2": {"capacity_MiB": 4, "bandwidth_GBps": 1000}, "compute_units": 4,
                        "calibration": {"matmul_efficiency": 0.5, "memory_efficiency": 0.7,
                                        "tile_overhead_k": 32, "kernel_overhead_us": 1}},
             "devices_per_node": 2,
             "scale_up": {"bandwidth_GBps": 10, "latency_us": 1, "domain_size": 2},
             "scale_out": {"bandwidth_GBps": 1, "latency_us": 10}},
  "num_devices": 4, "parallel": {"tp": 2, "pp": 2},
  "inference": {"batch": 3, "prompt_len": 17, "output_len": 5, "precision": "int8", "kv_precision": "fp16"}})";
// The same toy with speculative decoding (a one-layer draft model) under continuous batching.
const char* kSmallSpeculative =
    R"({"model": {"layers": 2, "hidden": 64, "heads": 4, "kv_heads": 1, "head_dim": 32,
            "ffn_hidden": 256, "vocab": 512, "ffn_type": "relu2"},
  "system": "dgx-h100", "num_devices": 2, "parallel": {"tp": 2},
  "inference": {"batch": 2, "prompt_len": 17, "output_len": 9, "cuda_graphs": true,
                "speculative": {"draft_tokens": 3, "acceptance_rate": 0.6,
                                "draft": {"layers": 1, "hidden": 32, "heads": 2, "ffn_hidden": 64, "vocab": 512}},
                "serving": {"arrival": "poisson", "requests_per_s": 40, "num_requests": 16,
                            "input_len": {"mean": 20, "max": 60}, "output_len": [[4, 1], [12, 1]],
                            "max_num_tokens": 64, "kv_block_tokens": 8}}})";

// A toy MoE served with attention data parallelism (two ranks stepping together) in block-scaled
// fp8 on Hopper, with long-tailed lengths, so that the ranks' schedules differ, in static batches.
const char* kSmallDep =
    R"({"model": {"layers": 2, "hidden": 64, "heads": 4, "kv_heads": 1, "head_dim": 32,
            "ffn_hidden": 128, "vocab": 512, "moe": {"experts": 4, "top_k": 2, "expert_ffn_hidden": 64}},
  "system": "dgx-h100", "num_devices": 2, "parallel": {"tp": 1, "dp": 2, "ep": 2},
  "software": {"name": "kernels", "software": {"block_fp8_gemm": "cutlass"}},
  "inference": {"batch": 2, "prompt_len": 17, "output_len": 9, "precision": "fp8", "fp8_block_scaled": true,
                "serving": {"arrival": "offline", "num_requests": 12, "static_batching": true, "max_batch": 4,
                            "input_len": {"mean": 20, "max": 60}, "output_len": {"mean": 8, "max": 40}}}})";

// RL post-training jobs (docs/rl.md): a colocated PPO job with a critic, a reward model and ZeRO-3
// trainers over a whole run (its rollout eager, in static batches), and a split asynchronous GRPO
// job with long-tailed responses, an fp8 rollout engine, padded micro-batches, a checkpoint weight
// sync and a rule-based reward with its host time, so that every phase and both placements are
// reached.
const char* kRlColocated =
    R"({"model": "llama3.2-1b", "system": "dgx-h100", "num_devices": 8,
  "rl": {"algorithm": "ppo", "prompts_per_step": 8, "prompt_len": 64, "response_len": {"mean": 96, "max": 256},
         "reward_model": "llama3.2-1b", "mini_batches": 2,
         "rollout": {"software": "vllm", "static_batching": true, "max_batch": 4, "cuda_graphs": false},
         "train": {"zero_stage": 3}, "train_steps": 10}})";
const char* kRlSplit =
    R"({"model": "qwen3-30b-a3b", "system": "dgx-h100", "num_devices": 16,
  "rl": {"prompts_per_step": 4, "samples_per_prompt": 4, "prompt_len": {"mean": 200, "max": 1024},
         "response_len": [[32, 3], [2048, 1]], "placement": "split", "rollout_devices": 8, "train_devices": 8,
         "rollout": {"tp": 1, "ep": 8, "dp": 8, "precision": "fp8"}, "train": {"ep": 8, "micro_batch": 2, "padding": "longest"},
         "async": {"staleness": 1}, "weight_sync": "checkpoint", "reward_cpu_ms": 50, "reward_workers": 2,
         "controller_GBps": 0.5}})";

const optimus::fuzz::Material& bases() {
  static const optimus::fuzz::Material m = [] {
    std::vector<json> scenarios;
    for (const auto& id : optimus::fuzz::preset_ids("scenarios")) {
      const json s = json::parse(optimus::api::preset("scenarios", id));
      if (s.contains("error")) continue;
      scenarios.push_back(s);
      const json v = json::parse(optimus::api::validate(s.dump()));
      if (v.contains("scenario")) scenarios.push_back(v["scenario"]);
    }
    scenarios.push_back(json::parse(kSmallTraining));
    scenarios.push_back(json::parse(kSmallInference));
    scenarios.push_back(json::parse(kSmallSpeculative));
    scenarios.push_back(json::parse(kSmallDep));
    scenarios.push_back(json::parse(kRlColocated));
    scenarios.push_back(json::parse(kRlSplit));
    return optimus::fuzz::material(std::move(scenarios));
  }();
  return m;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 4096) return 0;
  optimus::fuzz::Recipe r(data, size);
  const json doc = optimus::fuzz::mutated(r, bases());
  optimus::fuzz::check_scenario(doc.dump(-1, ' ', false, json::error_handler_t::replace));
  return 0;
}
