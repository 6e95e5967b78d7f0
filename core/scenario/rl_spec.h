// The RL post-training workload (scenario `rl`; core/rl/ predicts it).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "base/enums.h"
#include "base/precision.h"
#include "hardware/spec.h"
#include "model/spec.h"
#include "scenario/layout.h"
#include "scenario/serving_spec.h"

namespace optimus {

// RL post-training (scenario `rl`, core/rl/): one step of a GRPO or PPO job as the stacks run it
// (verl, OpenRLHF, NeMo-RL, AReaL): generate responses on an inference engine, score them,
// recompute log-probabilities, train, push the new weights to the engine.
OPTIMUS_ENUM(RlAlgorithm, grpo, ppo);
// colocated: one pool time-shares the engine and the trainer (verl's hybrid engine); split: a
// rollout pool and a training pool of their own.
OPTIMUS_ENUM(RlPlacement, colocated, split);
// How the engine gets the new weights: nccl (gathered from the trainer's shards and broadcast over
// the fabric), checkpoint (through storage), host (read from the host memory the trainer's shards
// were staged in, bucket by bucket, and broadcast: MoonshotAI checkpoint-engine).
OPTIMUS_ENUM(RlWeightSync, nccl, checkpoint, host);

// The trainer's models on the training pool. shared: every role (actor, critic, reference, reward)
// runs on the whole pool, one after another (verl's hybrid worker group); separate: each model on
// GPUs of its own, their passes running at once (OpenRLHF's Ray placement groups without the
// colocate flags: Hu et al. 2024, arXiv 2405.11143, Sec. 3).
OPTIMUS_ENUM(RlRoles, shared, separate);
// The trainer's state held in host memory between the passes that need it (verl's FSDP workers'
// param_offload / optimizer_offload): none; optimizer (the optimizer state); params_optimizer
// (the parameters as well); cpu_optimizer: the optimizer state lives in host memory and the CPU
// steps it (parallel.optimizer_offload: Megatron-Core's --optimizer-cpu-offload, as slime's
// scripts run it; OpenRLHF's --adam_offload, DeepSpeed ZeRO-Offload).
OPTIMUS_ENUM(RlOffload, none, optimizer, params_optimizer, cpu_optimizer);
// How the trainer lays out an unpacked micro-batch's sequences: removed (their padding removed,
// the sequences concatenated: verl's use_remove_padding, the packed stacks) or longest (each
// micro-batch padded to its longest sequence and computed whole, as Hugging Face models take a
// padded batch: OpenRLHF before --packing_samples, whose replay buffer pads every training
// micro-batch to its longest sequence, replay_buffer.make_experience_batch / zero_pad_sequences
// at 0baf3dd; TRL's trainers without padding_free).
OPTIMUS_ENUM(RlPadding, removed, longest);
// What kind of responses the policy writes, which sets the mean response under a whole-number
// response_len limit (core/rl/rl.cpp, read_length_limits): short_cot (a base or instruct model:
// zero-RL from a base model, RLHF of an instruct model: hundreds of tokens to about a thousand);
// long_cot (a model distilled or trained to reason at length: DeepSeek-R1 and its distills, QwQ,
// thinking models: thousands of tokens). Absent: read from the model's name.
OPTIMUS_ENUM(RlResponseStyle, short_cot, long_cot);
// Devices of each role under roles "separate" (0 = split in proportion to the role's work).
struct RlRoleDevices {
  std::int64_t actor = 0, critic = 0, reference = 0, reward = 0;
};

// The rollout engine: its layout (0 = chosen: the fastest power-of-two tp that holds the longest
// response, rl_rollout_scenario and run_rollout; dp = what is left of the pool), its software stack (the
// system's software block with the profile laid over it, and the profile's scheduler) and precision.
struct RlRollout {
  std::int64_t tp = 0, pp = 1, ep = 0, dp = 0;
  std::string software_id = "vllm";
  SoftwareDefaults software;  // the rollout's kernels (system software + profile)
  std::optional<bool> cuda_graphs;
  // The samples of a prompt share its prompt's KV blocks and prefill (vLLM's n samples and prefix
  // cache, SGLang's radix cache: ServingSpec::prompt_group). false: each sample prefills and
  // stores its own copy (a stack that turns the prefix cache off).
  bool prefix_caching = true;
  ServingSpec scheduler;  // max_batch, gpu_memory_utilization, blocks (profile + keys)
  Precision precision = Precision::bf16;
  bool precision_from_checkpoint = false;  // not stated: model.checkpoint_precision (io/json_io.cpp)
  bool profile_schedules = true;           // the software profile states a scheduler (a serving block)
  // Speculative decoding on the rollout engines (SGLang's and vLLM's MTP or draft model, as slime's
  // and verl's rollout options pass it through): inference.speculative's keys.
  std::optional<Speculative> speculative;
};

// The default controller rate (GB/s): fitted on verl's published phase times, two sources, with
// each one's leave-one-source-out error (docs/rl.md, "The single controller's data plane").
inline constexpr double kRlControllerGBps = 0.25;

struct RlWorkload {
  RlAlgorithm algorithm = RlAlgorithm::grpo;
  std::optional<ModelSpec> critic;  // ppo: absent = the policy's shape
  std::int64_t prompts_per_step = 512, samples_per_prompt = 16;
  LengthDist prompt_len, response_len;
  std::optional<RlResponseStyle> response_style;  // absent: read from the model's name
  bool reference = true;
  std::optional<ModelSpec> reward_model;  // absent: a rule-based reward (no GPU time)
  // A rule-based reward's host time: milliseconds of CPU per response (extracting and checking the
  // answer, running the code), scored by reward_workers processes side by side (1: verl's reward
  // manager in the driver). 0: not timed.
  double reward_cpu_ms = 0;
  std::int64_t reward_workers = 1;
  // The single controller's data plane (core/rl/rl.cpp controller_passes): the rate at which the
  // driver process moves the step's padded batch to and from the workers, once per phase. 0: the
  // workers exchange the batch directly (no controller time). Absent: kRlControllerGBps, assumed
  // (the warning rl.controller_assumed says so).
  std::optional<double> controller_GBps;
  bool old_logprob = true;
  std::int64_t mini_batches = 1;
  RlPlacement placement = RlPlacement::colocated;
  std::int64_t rollout_devices = 0, train_devices = 0;  // split: both given, summing to num_devices
  RlRollout rollout;
  bool train_auto = false;   // train: "auto" (the layout search picks the trainer's layout)
  bool train_given = false;  // train stated (an object or "auto"); absent, the placement search searches it
  // The trainer's layout (dp 0 = what is left of the pool). Activations are recomputed unless
  // rl.train.recompute says otherwise, as the stacks train by default: verl's ppo_trainer.yaml sets
  // enable_gradient_checkpointing True for the actor and the critic, and slime's scripts pass
  // --recompute-granularity full --recompute-method uniform --recompute-num-layers 1. ("auto"
  // lets the layout search choose it with the rest.)
  ParallelPlan train = [] {
    ParallelPlan p;
    p.recompute = Recompute::full;
    return p;
  }();
  RlOffload offload = RlOffload::none;
  RlPadding padding = RlPadding::removed;
  // Packed micro-batches (verl's use_dynamic_bsz with ppo_max_token_len_per_gpu, NeMo-RL's
  // sequence packing with train_mb_tokens, OpenRLHF's --packing_samples, AReaL's
  // max_tokens_per_mb): the tokens one device takes per micro-batch. Absent: twice the longest
  // prompt + response unless train.micro_batch is given; 0: micro_batch sequences, unpacked.
  std::optional<std::int64_t> micro_batch_tokens;
  bool ep_given = false;           // train.ep stated (else 1: every expert on every trainer device)
  bool micro_batch_given = false;  // train.micro_batch stated
  bool zero_stage_given = false;   // train.zero_stage stated (else the smallest that fits)
  bool offload_given = false;      // train.offload stated (else cpu_optimizer where nothing fits)
  RlRoles roles = RlRoles::shared;
  RlRoleDevices role_devices;
  Precision train_precision = Precision::bf16;
  std::int64_t staleness = 0;    // async: rollouts may lag the policy by this many steps
  bool partial_rollout = false;  // async: unfinished responses continue after a weight sync
  RlWeightSync weight_sync = RlWeightSync::nccl;
  std::int64_t train_steps = 0;  // 0 = one step only (no whole-run block)
};

}  // namespace optimus
