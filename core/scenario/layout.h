// The parallel layout as a scenario states it (scenario `parallel`): the degrees, the schedule
// and the memory options. What follows from it (stage splits, the layer shapes one device sees,
// the checks against a model) is parallel/plan.h.
#pragma once

#include <cstdint>

#include "model/graph.h"

namespace optimus {

struct ParallelPlan {
  std::int64_t tp = 1, pp = 1, dp = 1, cp = 1, ep = 1;
  bool sequence_parallel = false;
  std::int64_t micro_batch = 1;
  std::int64_t interleave = 1;  // model chunks per pipeline stage (1 = plain 1F1B)
  Recompute recompute = Recompute::none;
  int zero_stage = 0;
  // Hybrid sharding: the data-parallel ranks (dp x cp) that share one copy of the ZeRO state;
  // the others hold replicas of it (PyTorch FSDP HYBRID_SHARD, MiCS's partition groups: Zhang
  // et al. 2022, arXiv 2205.00119). 0 = every replica shares it (plain ZeRO / FULL_SHARD).
  std::int64_t zero_shard = 0;
  // Expert tensor parallel. Expert layers fold the same ranks differently (Megatron-Core MoE
  // parallel folding, arXiv 2504.14960): etp x ep x edp = tp x cp x dp per pipeline stage.
  std::int64_t etp = 1;
  // Inference: expert slots over the ep ranks, beyond the model's experts when the serving runtime
  // replicates hot experts (DeepSeek's EPLB, arXiv 2412.19437 Sec. 3.4: 32 redundant experts in
  // decode, 288 slots for 256 experts; SGLang --ep-num-redundant-experts, TensorRT-LLM's
  // num_slots). Each ep rank holds slots / ep experts' weights, and a token's expert is one of the
  // copies, so the routed rows spread over more local GEMMs. The router's skew that remains is
  // the model's moe.imbalance, as stated. 0 = one slot per expert.
  std::int64_t expert_slots = 0;
  // Under full recompute, the share of each stage's layers that are checkpointed and rebuilt in
  // the backward; the others keep every activation (OLMo's activation_checkpointing one_in_two =
  // 0.5, torchtitan's layer-selective checkpointing, Megatron-LM's --recompute-method block with
  // --recompute-num-layers n = n / layers per stage). 1 = every layer (Korthikanti et al. 2022).
  double recompute_fraction = 1.0;
  // Layers whose saved activations wait in host memory between their forward and their backward
  // (Megatron-Core cpu_offloading with cpu_offloading_num_layers; Megatron-Bridge's GB200 Llama 3
  // 70B recipes offload 20 or 40 of the 80). Needs pp 1 and no recompute, as Megatron-Core does.
  std::int64_t offload_layers = 0;
  // The optimizer state (fp32 master weights and Adam moments) kept in host memory and stepped by
  // the CPU (Megatron-Core --optimizer-cpu-offload with --optimizer-offload-fraction 1 and
  // --overlap-cpu-optimizer-d2h-h2d, megatron/core/optimizer/cpu_offloading; DeepSpeed
  // ZeRO-Offload, Ren et al. 2021, arXiv 2101.06840): slime's RL scripts for large MoE models run
  // it. Each optimizer step copies the device's gradient shard to the host and the updated
  // 16-bit weights back. Needs a system with host_link_GBps.
  bool optimizer_offload = false;
  // Under selective recompute, the modules recomputed (Megatron-Core recompute_modules; the
  // default, the attention core, is the spec's selective recompute).
  ModuleSet recompute_modules = kCoreAttnOnly;
};

}  // namespace optimus
