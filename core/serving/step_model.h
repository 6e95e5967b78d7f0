// The one interface through which the serving simulator reaches the engine: for one pool of
// identical replicas, the time of a step (a mix of prompt chunks and decoding sequences, as a
// continuous-batching scheduler forms it), of a speculative draft pass and of a prompt's KV
// hand-off, and what a replica's memory holds. predict/serving.cpp builds it from a scenario; the
// scheduler's own settings (token budget, batch, host times) come with it in `sched`.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "model/graph.h"
#include "scenario/serving_spec.h"

namespace optimus {

// What one replica of a pool can hold and how it schedules.
struct PoolLimits {
  ServingSpec sched;          // its scheduler: inference.serving with the pool's own settings over it
  std::int64_t replicas = 1;  // the simulator's: replicas x engines
  // Engines a replica runs at once: pipeline parallelism's pp batches in flight (predict/serving.cpp
  // plan_pool), each engine one of `replicas` with 1/engines of the replica's KV cache; 1 otherwise.
  std::int64_t engines = 1;
  // The replicas as deployed (each of `engines` engines).
  std::int64_t deployed_replicas() const { return replicas / engines; }
  std::int64_t devices = 1;  // of the whole pool
  double kv_capacity = 0;    // bytes of KV blocks per device
  // KV bytes per device of a context, piecewise linear: `per_sequence` (linear attention's states)
  // and the full rate up to the window, `tail` per token beyond it (windowed layers stop growing).
  double per_sequence = 0, per_token = 0, tail_per_token = 0;
  std::int64_t window = 0;
  std::int64_t block = 16;
  // Speculative decoding: whether a draft runs on the pool's devices, tokens drafted per step and
  // the expected tokens a decoding sequence gains per step.
  bool draft = false;
  std::int64_t spec_k = 0;
  double spec_gain = 1;
  // Attention data parallelism: groups of `lockstep_group` consecutive replicas meet in every MoE
  // layer and step together (0: every replica keeps its own clock).
  std::int64_t lockstep_group = 0;
  // Whether runs of decode-only steps may be taken at once (the replica's decode stretches, exact
  // where a step's time is affine in the context); tests turn it off to compare step by step.
  bool stretches = true;

  // Whether a step over `groups` fits the largest captured CUDA graph
  // (ServingSpec::cuda_graph_max_batch, counted in sequences or in tokens as cuda_graph_unit says,
  // tokens never more than the step budget); a larger step runs eager.
  bool within_graphs(const std::vector<SeqGroup>& groups) const {
    if (sched.cuda_graph_max_batch <= 0) return true;
    const bool tokens = sched.cuda_graph_unit == GraphUnit::tokens;
    return (tokens ? tokens_of(groups) : sequences_of(groups)) <= graph_limit();
  }
  // The largest captured graph in cuda_graph_unit's unit (tokens: never past the step budget).
  std::int64_t graph_limit() const {
    return sched.cuda_graph_unit == GraphUnit::tokens
               ? std::min(sched.cuda_graph_max_batch, sched.max_num_tokens)
               : sched.cuda_graph_max_batch;
  }
  // Whether a step over `groups` replays a captured graph: within it, and without a prompt chunk
  // where the runtime prefills eager (ServingSpec::prefill_cuda_graphs). Otherwise ScenarioPool
  // (predict/serving.cpp) times it as issued from the host; the replica counts it
  // (ReplicaRun::eager_steps).
  bool replays_graph(const std::vector<SeqGroup>& groups) const {
    if (!within_graphs(groups)) return false;
    if (sched.prefill_cuda_graphs) return true;
    // The decode group steps 1 + spec_k tokens a sequence (ReplicaSim::step_time); any other group
    // is a prompt chunk.
    for (const SeqGroup& g : groups)
      if (g.new_tokens != 1 + spec_k) return false;
    return true;
  }
  bool has_eager_steps() const { return sched.cuda_graph_max_batch > 0 || !sched.prefill_cuda_graphs; }
  static std::int64_t sequences_of(const std::vector<SeqGroup>& groups) {
    std::int64_t n = 0;
    for (const SeqGroup& g : groups) n += g.sequences;
    return n;
  }
  static std::int64_t tokens_of(const std::vector<SeqGroup>& groups) {
    std::int64_t n = 0;
    for (const SeqGroup& g : groups) n += g.sequences * g.new_tokens;
    return n;
  }

  // Tokens in the whole blocks that hold `tokens`.
  std::int64_t covered(std::int64_t tokens) const { return (tokens + block - 1) / block * block; }
  double bytes_for(std::int64_t tokens) const {
    const double t = static_cast<double>(covered(tokens));
    const double w = static_cast<double>(window);
    if (window <= 0 || t <= w) return per_sequence + per_token * t;
    return per_sequence + per_token * w + tail_per_token * (t - w);
  }
};

class StepModel {
 public:
  explicit StepModel(PoolLimits limits) : limits_(std::move(limits)) {}
  virtual ~StepModel() = default;
  StepModel(const StepModel&) = delete;
  StepModel& operator=(const StepModel&) = delete;

  const PoolLimits& limits() const { return limits_; }
  // Seconds of one step of the served model over `groups` on a replica's devices (GPU time,
  // without the scheduler's host time).
  virtual double step_s(const std::vector<SeqGroup>& groups) = 0;
  // Seconds of one pass of the speculative draft over `groups` (only where limits().draft).
  virtual double draft_s(const std::vector<SeqGroup>& groups) = 0;
  // Seconds of step_s(groups) the GPU waits on the host issuing an eager step's kernels (0 for a
  // step that replays a graph, or where issuing them takes less than the GPU's work).
  virtual double host_wait_s(const std::vector<SeqGroup>&) { return 0; }
  // Seconds to move the KV cache of a prompt of `tokens` from a device of this pool to its
  // counterpart in the decode pool (disaggregated serving).
  virtual double kv_transfer_s(std::int64_t tokens) const = 0;

 private:
  PoolLimits limits_;
};

}  // namespace optimus
